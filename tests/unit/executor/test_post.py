"""HA post-steps: an empty host goes to maintenance; remaining VMs are down with it, or stopped where that can work."""

from keyvrm.db import api as db_api
from keyvrm.executor import post
from keyvrm.simulator.drivers.cloud import SimCloudDriver
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


def _fenced_by(db, host, *fencers):
    db_api.set_hypervisor_state(db, host, "fenced", fencing=[
        {"fencer": name, "host": host, "confirmed": True} for name in fencers])


def test_vms_left_on_a_powered_off_host_are_recorded_down_and_nothing_is_sent_to_nova(sqlite_db):
    region = h.small_region()
    h.source_down(region)
    _fenced_by(sqlite_db, h.SOURCE, "ipmi", "nova")
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_ids = [vm.id for vm in region.hosts[h.SOURCE].vms]
    clock = h.RegionClock(region)
    outcome = post.finish_evacuated_host(sqlite_db, SimCloudDriver(region), h.SOURCE, event_id, vm_ids,
                                         clock=clock, timeouts=h.TIMEOUTS_S)
    assert (outcome.state, outcome.stops, outcome.down_vm_ids) == ("error", (), tuple(vm_ids))
    assert clock.slept_s == 0  # never waits on a dead host
    assert db_api.list_recommendations(sqlite_db, event_id=event_id) == []
    assert all(region.vms[v].status == "ACTIVE" for v in vm_ids)  # Nova was asked nothing
    state = db_api.get_hypervisor_state(sqlite_db, h.SOURCE)
    assert state["state"] == "error" and "ipmi, nova confirmed" in state["reason"]
    assert state["fencing"][0]["fencer"] == "ipmi"  # the fencing record is kept
    [entry] = db_api.list_vm_history(sqlite_db, vm_ids[0])
    assert (entry["action"], entry["status"]) == ("stop", "down_with_host")
    assert "left on fenced host %s by event %s" % (h.SOURCE, event_id) in entry["message"]
    again = post.finish_evacuated_host(sqlite_db, SimCloudDriver(region), h.SOURCE, event_id, vm_ids,
                                       clock=clock, timeouts=h.TIMEOUTS_S)
    assert again.down_vm_ids == tuple(vm_ids) and len(db_api.list_vm_history(sqlite_db, vm_ids[0])) == 1


def test_a_host_whose_compute_service_is_down_gets_no_stop_even_without_a_power_fence(sqlite_db):
    region = h.small_region()
    h.source_down(region)
    _fenced_by(sqlite_db, h.SOURCE, "ceph")
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_id = h.vm_on(region, h.SOURCE).id
    outcome = _finish(sqlite_db, region, h.SOURCE, event_id, [vm_id])
    assert outcome.down_vm_ids == (vm_id,) and outcome.stops == ()
    assert "forced down" in db_api.get_hypervisor_state(sqlite_db, h.SOURCE)["reason"]


def test_a_host_the_fence_left_running_gets_a_journaled_stop_per_remaining_vm(sqlite_db):
    region = h.small_region()
    _fenced_by(sqlite_db, h.SOURCE, "ceph")
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


class _LostStops(SimCloudDriver):
    """Nova accepts every stop and never carries it out."""

    def stop_server(self, server_id):
        return None


def test_an_operator_cancels_a_stop_that_is_being_followed(sqlite_db):
    region = h.small_region()
    _fenced_by(sqlite_db, h.SOURCE, "ceph")
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_id = h.vm_on(region, h.SOURCE).id
    clock = h.RegionClock(region)
    cloud = _LostStops(region)
    stops = post._StopRequests(sqlite_db, cloud, h.SOURCE, event_id, clock, h.TIMEOUTS_S)
    stops.request(vm_id)
    [rec] = db_api.list_recommendations(sqlite_db, event_id=event_id)
    db_api.request_recommendation_cancel(sqlite_db, rec["id"], "operator")
    [stop] = stops.follow(5.0)
    assert stop.status == "cancelled" and "cancel requested by operator" in stop.message
    assert clock.slept_s == 0
    assert not db_api.get_vm_state(sqlite_db, vm_id)["locked"]


def test_a_restarted_post_step_follows_the_stop_it_had_asked_for(sqlite_db):
    region = h.small_region()
    _fenced_by(sqlite_db, h.SOURCE, "ceph")
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    vm_id = h.vm_on(region, h.SOURCE).id
    clock = h.RegionClock(region)
    first = post._StopRequests(sqlite_db, SimCloudDriver(region), h.SOURCE, event_id, clock, h.TIMEOUTS_S)
    first.request(vm_id)  # the engine dies here, before following it
    outcome = _finish(sqlite_db, region, h.SOURCE, event_id, [vm_id])
    assert [s.status for s in outcome.stops] == ["succeeded"]
    assert len(db_api.list_recommendations(sqlite_db, event_id=event_id)) == 1
    assert region.vms[vm_id].status == "SHUTOFF"


def test_a_vm_already_shutoff_counts_as_stopped(sqlite_db):
    region = h.small_region()
    _fenced_by(sqlite_db, h.SOURCE, "ceph")
    vm = h.vm_on(region, h.SOURCE)
    vm.status, vm.running = "SHUTOFF", False
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    [stop] = _finish(sqlite_db, region, h.SOURCE, event_id, [vm.id]).stops
    assert (stop.status, stop.message) == ("succeeded", "VM already SHUTOFF")
