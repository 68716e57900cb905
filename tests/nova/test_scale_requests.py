"""Requests per harvest cycle do not grow with hosts: 5 then 50 fake computes, same count.

Runs last in the session (it adds 45 computes to the shared fake cloud). Prints the
figures for the notes: requests, harvest time and snapshot size (JSON and zlib) at both sizes.
"""

import time

from keyvrm.harvest import assemble
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from tests.nova import conftest as c


def _cycle(driver):
    sources = assemble.HarvestSources(cloud=driver)
    before = driver.requests.total()
    started = time.perf_counter()
    snap = assemble.harvest(sources, settings.AppConfig(), now_s=time.time())
    took_s = time.perf_counter() - started
    return snap, driver.requests.total() - before, took_s


def _measure(driver, hosts):
    cold, cold_requests, _ = _cycle(driver)  # first cycle: discovery + Placement cache fill
    snap, requests, took_s = _cycle(driver)
    assert all(snap.source_ok(s) for s in (m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE))
    assert len([h for h in snap.hypervisors if h.name.startswith("compute")]) == hosts
    print("%d computes: %d requests per cycle (first cycle %d), harvest %.2f s, snapshot %d B JSON,"
          " %d B zlib" % (hosts, requests, cold_requests, took_s, len(codec.dumps(snap)),
                          len(codec.compress(snap))))
    return requests


def test_requests_per_cycle_are_the_same_at_5_and_50_computes(fake_cloud, driver):
    computes = len(fake_cloud.control("GET", "/health")["hosts"])
    at_5 = _measure(driver, computes)
    fake_cloud.add_computes(50 - computes)
    c.wait_for(lambda: len(driver.list_inventories()) >= 50, timeout_s=60)
    at_50 = _measure(driver, 50)
    assert at_5 == at_50
