"""The fast path's cycle: a suspect host's aggregate judged from the newest snapshot and fresh reads."""

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.model import reason_list
from tests.unit.flows import regions

HA_ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
DEAD = "cmp-00002"


def _counting(emb):
    """Count the cloud reads of the whole region's servers and of one host's."""
    calls = {"region": 0, "host": []}
    cloud = emb.drivers.cloud
    whole, one = cloud.list_servers, cloud.list_servers_on

    def list_servers():
        calls["region"] += 1
        return whole()

    def list_servers_on(host):
        calls["host"].append(host)
        return one(host)

    cloud.list_servers, cloud.list_servers_on = list_servers, list_servers_on
    return calls


def _fast_cycle(emb, hosts):
    emb.dispatcher.dispatch("fast", {"hosts": hosts})
    assert emb.dispatcher.wait_idle(120)
    return db_api.page_cycles(emb.db, 1)[0]


def test_a_dead_host_is_fenced_and_evacuated_from_its_aggregate_alone_without_a_region_harvest(make_region):
    emb = make_region(regions.dies(DEAD, at="1m"))
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON, regions.LB_AGG: HA_ON})
    assert emb.run_cycle(120)  # the periodic cycle's snapshot, while every host lives
    emb.advance(150.0)  # dead at 1 min; its heartbeat stale and Nova's service down since
    calls = _counting(emb)
    cycle = _fast_cycle(emb, [DEAD])
    assert (cycle["status"], cycle["reason_code"]) == ("completed", "fast_path")
    assert calls["region"] == 0 and DEAD in calls["host"]
    with emb.db.reader() as session:
        stored = session.get(models.RegionData, cycle["snapshot_id"])
        assert stored.scope == "hosts" and stored.hypervisor_count == 4  # agg-001's hosts only
    (event,) = db_api.list_events(emb.db, cycle_id=cycle["id"])
    assert (event["aggregate_name"], event["kind"], event["state"]) == (regions.HA_AGG, "HA", "healthy")
    moved = db_api.list_recommendations(emb.db, event_id=event["id"])
    assert moved and all(r["status"] == "succeeded" and r["source_host"] == DEAD for r in moved)
    assert db_api.get_hypervisor_state(emb.db, DEAD)["state"] == "maintenance"
    assert db_api.list_cycle_outcomes(emb.db, cycle["id"]) == []  # LB and the other aggregate wait


def test_a_host_whose_fresh_reads_show_it_alive_is_not_fenced(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    assert emb.run_cycle(120)
    emb.advance(60.0)
    cycle = _fast_cycle(emb, [DEAD])  # the watch's signal was a glitch: Nova and the heartbeat say alive
    assert cycle["reason_code"] == "fast_path" and db_api.list_events(emb.db) == []
    (outcome,) = db_api.list_cycle_outcomes(emb.db, cycle["id"])
    assert (outcome["aggregate_name"], outcome["kind"], outcome["reason_code"]) == (regions.HA_AGG, "HA", "no_failure")
    assert db_api.get_hypervisor_state(emb.db, DEAD)["state"] == "ok"


def test_before_the_first_snapshot_the_fast_path_leaves_the_host_to_the_periodic_cycle(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    cycle = _fast_cycle(emb, [DEAD])
    assert (cycle["status"], cycle["reason_code"]) == ("skipped", "no_snapshot")


def test_with_bmc_fencing_a_silent_host_whose_bmc_reports_it_off_is_fenced_before_novas_verdict(make_region):
    emb = make_region(regions.dies(DEAD, at="1m"))
    emb.configure(app={"enabled": True, "ha_fence_bmc": True}, aggregates={regions.HA_AGG: HA_ON})
    assert emb.run_cycle(120)
    emb.advance(95.0)  # dead at 1 min: its heartbeat is stale, Nova still shows its compute service up
    cycle = _fast_cycle(emb, [DEAD])
    (event,) = db_api.list_events(emb.db, cycle_id=cycle["id"])
    assert (event["kind"], event["state"]) == ("HA", "healthy")
    state = db_api.get_hypervisor_state(emb.db, DEAD)
    assert state["state"] == "maintenance"
    assert [f["fencer"] for f in state["fencing"] if f["confirmed"]] == ["bmc", "nova"]
    assert all(r["status"] == "succeeded" for r in db_api.list_recommendations(emb.db, event_id=event["id"]))


def test_with_bmc_fencing_a_silent_host_whose_bmc_reports_it_on_waits_for_nova(make_region):
    emb = make_region(regions.heartbeat_stops(DEAD, at="1m"))
    emb.configure(app={"enabled": True, "ha_fence_bmc": True}, aggregates={regions.HA_AGG: HA_ON})
    assert emb.run_cycle(120)
    emb.advance(95.0)
    cycle = _fast_cycle(emb, [DEAD])
    assert db_api.get_hypervisor_state(emb.db, DEAD)["state"] == "ok"
    (event,) = db_api.list_events(emb.db, cycle_id=cycle["id"])
    assert (event["state"], event["reason_code"]) == ("warning", "host_silent")  # Nova's verdict not due yet
    entries = reason_list.ReasonList.from_json(event["reasons"]).entries
    assert any("BMC reports it powered on" in entry.message for entry in entries)
