"""HA post-steps: an empty host goes to maintenance; remaining VMs get journaled stop requests."""

from keyvrm.db import api as db_api
from keyvrm.drivers.cloud.sim import SimCloudDriver
from keyvrm.executor import post
from tests.unit.executor import helpers as h


def _finish(db, region, host, event_id, vm_ids):
    return post.finish_evacuated_host(db, SimCloudDriver(region), host, event_id, vm_ids,
                                      clock=h.RegionClock(region), timeouts=h.TIMEOUTS_S)


def test_an_empty_host_goes_to_maintenance_with_its_service_disabled_and_a_reason(sqlite_db):
    region = h.small_region()
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    outcome = _finish(sqlite_db, region, h.SOURCE, event_id, [])
    assert outcome.state == "maintenance" and outcome.stops == ()
    host = region.hosts[h.SOURCE]
    assert host.disabled and host.disabled_reason == "KeyVRM: evacuated by event %s; maintenance" \
        % event_id
    state = db_api.get_hypervisor_state(sqlite_db, h.SOURCE)
    assert state["state"] == "maintenance" and state["reason"] == host.disabled_reason


def test_remaining_vms_put_the_host_in_error_and_each_gets_a_journaled_stop(sqlite_db):
    region = h.small_region()
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_ids = [vm.id for vm in region.hosts[h.SOURCE].vms]
    outcome = _finish(sqlite_db, region, h.SOURCE, event_id, vm_ids)
    assert outcome.state == "error"
    assert [s.status for s in outcome.stops] == ["succeeded", "succeeded"]
    assert all(region.vms[v].status == "SHUTOFF" for v in vm_ids)
    assert not region.hosts[h.SOURCE].disabled
    state = db_api.get_hypervisor_state(sqlite_db, h.SOURCE)
    assert state["state"] == "error" and state["reason"].startswith("2 VM(s) remain")
    recs = db_api.list_recommendations(sqlite_db, event_id=event_id)
    assert [(r["action"], r["status"]) for r in recs] == [("stop", "succeeded")] * 2
    assert h.kinds(sqlite_db, recs[0]["id"]) == ["start", "execute", "success"]
    assert not db_api.get_vm_state(sqlite_db, vm_ids[0])["locked"]


def test_a_stop_that_the_dead_host_never_carries_out_ends_stop_failed_at_the_timeout(sqlite_db):
    region = h.small_region()
    h.source_down(region)  # nova-compute gone: the stop cast is lost
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_id = h.vm_on(region, h.SOURCE).id
    clock = h.RegionClock(region)
    outcome = post.finish_evacuated_host(sqlite_db, SimCloudDriver(region), h.SOURCE, event_id,
                                         [vm_id], clock=clock, timeouts=h.TIMEOUTS_S)
    [stop] = outcome.stops
    assert stop.status == "failed" and "not SHUTOFF by the stopping timeout" in stop.message
    assert clock.slept_s == h.TIMEOUTS_S["stopping"]
    state = db_api.get_vm_state(sqlite_db, vm_id)
    assert not state["locked"] and state["failure_state"] == "stop_failed"
    history = db_api.list_vm_history(sqlite_db, vm_id)
    assert [(e["action"], e["status"]) for e in history] == [("stop", "failed")]


def test_a_vm_already_shutoff_counts_as_stopped(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    vm.status, vm.running = "SHUTOFF", False
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    [stop] = _finish(sqlite_db, region, h.SOURCE, event_id, [vm.id]).stops
    assert (stop.status, stop.message) == ("succeeded", "VM already SHUTOFF")
