"""HA's rounds against real Nova: a target Nova's scheduler refuses is left at once, the VM goes elsewhere.

The HAFlow's own steps (plan round 1, execute, plan round 2 from a fresh harvest, execute)
run in this process on the fake cloud with the real OpenStack driver. Three computes of
their own form an HA aggregate; the one holding the server dies (its nova-compute
stopped, its service forced down: what fencing leaves). Between KeyVRM's last check of
the target and Nova's scheduling, the target's resource provider gets Placement's
``COMPUTE_STATUS_DISABLED`` trait -- what a restored host's provider keeps until its
compute answers (the issue's "NoValidHost right after a host was restored"): every API
KeyVRM reads still shows the target up, enabled and with room, and Nova answers
"No valid host was found." Round 1's recommendation must fail at its first attempt
without the retry delay, with Nova's fault in its journal; round 2 must send the VM to
the other compute, never to the refused one, where Nova rebuilds it ACTIVE.
"""

import time

from keyvrm.clock import WallClock
from keyvrm.db import api as db_api
from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.cloud import openstack_http
from keyvrm.executor.settings import ExecutorSettings
from keyvrm.flows import ha
from keyvrm.flows import resources as flow_resources
from tests.nova import conftest as c

AGGREGATE = "agg-ha-refused"
DISABLED_TRAIT = "COMPUTE_STATUS_DISABLED"
TIMEOUTS_S = {"starting": 60, "stopping": 60, "suspending": 60, "resuming": 60,
              "creating": 60, "deleting": 60, "migrating": 60, "restoring": 60}
# the shipped retry delay: a refused target must not wait for it
EXECUTOR = ExecutorSettings(poll_interval_s=0.2, retry_delay_s=10.0, lifecycle_timeouts_s=TIMEOUTS_S)


def _set_disabled_trait(driver, host, present):
    """Add (or remove) COMPUTE_STATUS_DISABLED on ``host``'s resource provider, as Nova's compute does."""
    [provider] = c.placement(driver, "/resource_providers?name=%s" % host)["resource_providers"]
    path = "/resource_providers/%s/traits" % provider["uuid"]
    current = c.placement(driver, path)
    traits = set(current["traits"]) - {DISABLED_TRAIT} | ({DISABLED_TRAIT} if present else set())
    openstack_http.call(driver.conn.placement, "PUT", path, microversion="1.39", json={
        "traits": sorted(traits), "resource_provider_generation": current["resource_provider_generation"]})


def _refusing_first_target(driver, refused):
    """``driver`` whose first evacuation's target becomes one Nova's scheduler refuses, just before Nova is asked."""
    evacuate = driver.evacuate

    def evacuate_after_the_trait(server_id, target_host):
        if not refused:
            _set_disabled_trait(driver, target_host, True)
            refused.append(target_host)
        return evacuate(server_id, target_host)
    driver.evacuate = evacuate_after_the_trait
    return driver


def test_a_target_nova_refuses_is_left_at_once_and_round_2_evacuates_the_vm_elsewhere(sqlite_db, fake_cloud):
    source, *targets = fake_cloud.add_computes(3)
    refused = []
    driver = _refusing_first_target(openstack.from_endpoints(fake_cloud.service_endpoints), refused)
    c.aggregate(driver, AGGREGATE, [source] + targets)
    vm = c.boot(driver, "ha-refused", source)
    fake_cloud.stop_compute(source)
    driver.force_down_service(source)
    res = flow_resources.EngineResources(
        db=sqlite_db, cloud=driver, clock=WallClock(), dispatcher=flow_resources.Dispatcher(), fencers=None,
        conf=flow_resources.FlowSettings(executor=EXECUTOR))
    try:
        snapshot_id, event_id = c.ha_event(res, AGGREGATE)
        db_api.set_hypervisor_state(sqlite_db, source, "fenced", event_id=event_id,
                                    fencing=[{"fencer": "nova", "host": source, "confirmed": True}])
        [first] = ha.PlanFirstRound(res).execute(event_id, AGGREGATE, snapshot_id, [source])
        started = time.monotonic()
        round1 = ha.Execute(res, 1).execute([first], AGGREGATE, snapshot_id)
        round1_s = time.monotonic() - started
        round2_ids = ha.PlanSecondRound(res).execute(event_id, AGGREGATE, [source], round1)
        round2 = ha.Execute(res, 2).execute(round2_ids, AGGREGATE, snapshot_id)
    finally:
        for host in refused:
            _set_disabled_trait(driver, host, False)
        fake_cloud.start_compute(source)
        driver.force_down_service(source, False)

    rec = db_api.get_recommendation(sqlite_db, first)
    ops = db_api.list_operations(sqlite_db, first)
    print("round 1 refused in %.2f s: %s" % (round1_s, ops[-1]["error"]))
    assert round1 == {first: "failed"} and refused == [rec["target_host"]]
    assert rec["attempts"] == 1 and round1_s < EXECUTOR.retry_delay_s
    assert [op["kind"] for op in ops] == ["start", "prepare", "execute", "error"]
    assert ops[-1]["error"].endswith("ended error; Nova's fault: No valid host was found.")
    [again] = round2_ids
    assert round2 == {again: "succeeded"}
    [other] = [t for t in targets if t not in refused]
    assert db_api.get_recommendation(sqlite_db, again)["target_host"] == other
    server = c.server(driver, vm)
    assert (server["OS-EXT-SRV-ATTR:host"], server["status"]) == (other, "ACTIVE")
