"""Harvest reads never make Nova call a compute, so a crashed compute cannot stall them.

From microversion 2.88 Nova's ``GET /os-hypervisors/detail`` asks every compute for its
uptime over RPC. While a dead compute still counts as up (``service_down_time``: 6 s in
the fake cloud) that call waits ``rpc_response_timeout`` (60 s) and the API answers 500.
The fake cloud lists every RPC message its Nova API sends to a compute while serving a
request (``GET /compute-rpc``), so the first tests see the calls themselves; the last one
stops a compute and times the reads inside that window. Figures print with ``-s``.
"""

import time

from keyvrm.drivers import errors
from keyvrm.harvest import assemble
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from tests.nova import conftest as c

STOPPED_HOST = "compute003"
FAST_S = 5.0  # a harvest of 5 computes takes well under a second when nothing blocks


def _harvest(driver):
    return assemble.harvest(assemble.HarvestSources(cloud=driver), settings.AppConfig(),
                            now_s=time.time())


def _timed(read):
    started = time.monotonic()
    try:
        return read(), None, time.monotonic() - started
    except errors.CloudError as exc:
        return None, exc, time.monotonic() - started


def _new_compute_rpc(fake_cloud, since):
    return fake_cloud.compute_rpc_calls()[since:]


def test_the_rpc_log_sees_the_uptime_call_nova_makes_per_compute_at_2_88(fake_cloud, driver):
    listed = c.nova(driver, "GET", "/os-hypervisors/detail", "2.87")["hypervisors"]
    hosts = {h["service"]["host"] for h in listed}
    # Nova asks only computes it sees up: one an earlier test stopped and started may not have reported yet
    c.wait_for(lambda: all(s.is_up for s in driver.list_compute_services() if s.host in hosts), timeout_s=60)
    before = len(fake_cloud.compute_rpc_calls())
    c.nova(driver, "GET", "/os-hypervisors/detail", "2.88")
    calls = _new_compute_rpc(fake_cloud, before)
    assert {(call["method"], call["call"]) for call in calls} == {("get_host_uptime", True)}
    assert {call["host"] for call in calls} == hosts


def test_a_full_harvest_sends_no_rpc_to_any_compute(fake_cloud, driver):
    driver.list_compute_services()  # version discovery, outside the counted reads
    before = len(fake_cloud.compute_rpc_calls())
    snap = _harvest(driver)
    assert all(snap.source_ok(s) for s in (m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE))
    assert len([h for h in snap.hypervisors if h.name.startswith("compute")]) >= 5
    assert _new_compute_rpc(fake_cloud, before) == []


def test_hypervisors_and_harvest_stay_fast_while_a_stopped_compute_still_counts_as_up(
        fake_cloud, driver):
    driver.list_compute_services()
    fake_cloud.stop_compute(STOPPED_HOST)
    try:
        hypervisors, list_error, list_s = _timed(driver.list_hypervisors)
        snap, _, harvest_s = _timed(lambda: _harvest(driver))
        still_up = driver.get_service(STOPPED_HOST).is_up
    finally:
        fake_cloud.start_compute(STOPPED_HOST)
        c.wait_for(lambda: driver.get_service(STOPPED_HOST).is_up, timeout_s=30)
    print("compute %s stopped, still up in Nova: list_hypervisors %.2f s, full harvest %.2f s"
          % (STOPPED_HOST, list_s, harvest_s))
    assert list_error is None and list_s < FAST_S, "list_hypervisors: %.1f s, %s" % (list_s, list_error)
    assert harvest_s < FAST_S and snap.source_ok(m.SOURCE_NOVA), (harvest_s, snap.sources)
    assert still_up, "Nova saw %s down before the reads ended: they missed the window" % STOPPED_HOST
    stopped = {h.name: h for h in snap.hypervisors}[STOPPED_HOST]
    assert stopped.service.state == m.SERVICE_UP and STOPPED_HOST in {h.name for h in hypervisors}
