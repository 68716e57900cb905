"""Scenario tests: whole cycles through the engine's dispatcher and persistence on the simulated region."""

import pytest

from keyvrm.db import api as db_api
from keyvrm.executor import runner
from tests.unit.flows import regions

ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
HA_AGG, LB_AGG, CPU_LB = regions.HA_AGG, regions.LB_AGG, regions.CPU_LB
dies, overloads = regions.dies, regions.overloads


def run_cycles(emb, count, step_s=60.0):
    for _ in range(count):
        assert emb.run_cycle(120)
        emb.advance(step_s)


def events_of(emb, aggregate=None, kind=None):
    return db_api.list_events(emb.db, aggregate_name=aggregate, kind=kind)


def runs(emb, aggregate, kind=None):
    """(cycle id, reason code) of each run of the aggregate, oldest first: its event, or the cycle's outcome."""
    found = []
    for cycle in sorted(db_api.page_cycles(emb.db, 1000), key=lambda c: c["id"]):
        outcomes = db_api.get_cycle_summary(emb.db, cycle["id"])["outcomes"]
        found += [(cycle["id"], e["reason_code"]) for e in db_api.list_events(
            emb.db, aggregate_name=aggregate, kind=kind, cycle_id=cycle["id"])]
        found += [(cycle["id"], o["reason_code"]) for o in outcomes
                  if o["aggregate_name"] == aggregate and kind in (None, o["kind"])]
    return found


def codes(emb, aggregate, kind=None):
    return [code for _, code in runs(emb, aggregate, kind)]


def test_ha_evacuates_a_dead_host_and_puts_it_in_maintenance(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON})
    vms = [vm.id for vm in emb.region.hosts["cmp-00001"].vms]
    run_cycles(emb, 5)
    recs = [r for r in db_api.list_recommendations(emb.db) if r["action"] == "evacuate"]
    assert sorted(r["vm_id"] for r in recs) == sorted(vms)
    assert {r["status"] for r in recs} == {"succeeded"}
    assert all(emb.region.vms[vm].host != "cmp-00001" for vm in vms)
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "maintenance"
    acted = [e for e in events_of(emb, HA_AGG) if e["reason_code"] == "recommendations_final"]
    assert len(acted) == 1 and acted[0]["state"] == "healthy" and acted[0]["status"] == "completed"
    assert codes(emb, HA_AGG)[-1] == "already_handled"  # later cycles leave the host alone


def test_evacuations_start_in_the_order_they_were_planned(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON})
    run_cycles(emb, 5)
    planned = [r["vm_id"] for r in db_api.list_recommendations(emb.db) if r["action"] == "evacuate"]
    asked = [mig.server_id for mig in sorted(emb.region.migrations.values(), key=lambda mig: mig.id)
             if mig.migration_type == "evacuation"]
    assert len(planned) == 3 and asked == planned


def test_ha_lb_runs_no_lb_in_a_cycle_where_ha_acted(make_region):
    emb = make_region(dies("cmp-00005", at="2m"))
    emb.configure(app={"enabled": True, "lb_recommendations_auto_run": True},
                  aggregates={LB_AGG: dict(ON, marker="HA+LB", lb_period=60)})
    run_cycles(emb, 5)
    ha_cycles = {e["cycle_id"] for e in events_of(emb, LB_AGG, "HA") if e["reason_code"] == "recommendations_final"}
    lb_cycles = {cycle for cycle, code in runs(emb, LB_AGG, "LB") if code not in ("lb_too_early", "ha_acted")}
    assert [code for cycle, code in runs(emb, LB_AGG, "LB") if cycle in ha_cycles] == ["ha_acted"]
    assert len(ha_cycles) == 1
    assert not ha_cycles & lb_cycles
    assert len(lb_cycles) == 4  # every other cycle ran LB (lb_period 60 s)


def test_lb_respects_lb_period(make_region):
    emb = make_region(overloads("cmp-00005"))
    emb.configure(app={"enabled": True, "lb_recommendations_auto_run": True},
                  aggregates={LB_AGG: dict(CPU_LB, marker="LB", lb_period=180)})
    run_cycles(emb, 7)
    ran = [c != "lb_too_early" for c in codes(emb, LB_AGG, "LB")]
    assert ran == [True, False, False, True, False, False, True]
    moves = [r for r in db_api.list_recommendations(emb.db) if r["action"] == "live_migrate"]
    assert moves and all(r["source_host"] == "cmp-00005" for r in moves)
    assert {r["status"] for r in moves} == {"succeeded"}


def test_noop_aggregates_get_nothing(make_region):
    emb = make_region(dies("cmp-00001") + overloads("cmp-00005"))
    emb.configure(app={"enabled": True}, aggregates={LB_AGG: {"marker": "LB"}})  # still NOOP
    run_cycles(emb, 3)
    assert events_of(emb) == [] and db_api.list_recommendations(emb.db) == []
    cycle = db_api.page_cycles(emb.db, 1)[0]
    assert cycle["status"] == "completed"
    assert "agg-001: [no_marker]" in cycle["reason"] and "agg-002: [noop]" in cycle["reason"]


def test_disabled_service_does_nothing(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(aggregates={HA_AGG: ON})
    run_cycles(emb, 3)
    cycles = db_api.page_cycles(emb.db, 10)
    assert [(c["status"], c["reason_code"], c["snapshot_id"]) for c in cycles] == [("skipped", "disabled", None)] * 3
    assert events_of(emb) == [] and db_api.list_snapshots(emb.db) == []


def bmc_fault(host, mode, at="1m30s"):
    return "  - at: %s\n    fault: bmc_fault\n    hosts: [%s]\n    mode: %s\n" % (at, host, mode)


@pytest.mark.parametrize("mode,why", [("refuse", "refused"), ("timeout", "did not answer")])
def test_ha_never_evacuates_a_host_whose_simulated_bmc_does_not_fence_it(make_region, mode, why):
    emb = make_region(dies("cmp-00001") + bmc_fault("cmp-00001", mode))
    emb.configure(app={"enabled": True, "ha_fence_bmc": True, "ha_fence_nova": True}, aggregates={HA_AGG: ON})
    run_cycles(emb, 4)
    assert db_api.list_recommendations(emb.db) == []
    assert all(vm.host == "cmp-00001" for vm in emb.region.hosts["cmp-00001"].vms)
    failed = [e for e in events_of(emb, HA_AGG) if e["reason_code"] == "fencing_impossible"]
    assert failed and failed[0]["state"] == "error" and why in failed[0]["reason"]
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "error"


def test_ha_fences_through_the_simulated_bmc_ceph_and_nova_then_evacuates(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(app={"enabled": True, "ha_fence_bmc": True, "ha_fence_ceph": True, "ha_fence_nova": True},
                  aggregates={HA_AGG: ON})
    vms = [vm.id for vm in emb.region.hosts["cmp-00001"].vms]
    run_cycles(emb, 5)
    fencing = db_api.get_hypervisor_state(emb.db, "cmp-00001")["fencing"]
    assert [(r["fencer"], r["confirmed"]) for r in fencing] == [("ceph", True), ("bmc", True), ("nova", True)]
    assert "%s:0/0" % emb.region.hosts["cmp-00001"].host_ip in emb.region.blocklist
    assert all(emb.region.vms[vm].host != "cmp-00001" for vm in vms)


def test_diagnostics_no_fencer_and_empty_filters_leave_their_reasons(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(app={"enabled": True, "ha_fence_nova": False, "nova_filters": []},
                  aggregates={HA_AGG: ON, LB_AGG: {"marker": "LB", "no_op_mode": False}})
    run_cycles(emb, 5)
    no_fencer = [e for e in events_of(emb, HA_AGG) if e["reason_code"] == "no_fencer"]
    assert no_fencer and no_fencer[0]["state"] == "error"
    assert db_api.list_recommendations(emb.db) == []
    first_lb = events_of(emb, LB_AGG, "LB")[0]
    assert "[no_filters]" in first_lb["reason"] and "[no_overload]" in first_lb["reason"]


def test_a_cycle_an_operator_requested_is_the_one_that_runs(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True})
    requested = db_api.request_cycle(emb.db, "operator")
    run_cycles(emb, 1)
    cycles = db_api.page_cycles(emb.db, 10)
    assert [(c["id"], c["status"]) for c in cycles] == [(requested, "completed")]


def test_diagnostics_a_metrics_outage_leaves_no_metrics_and_moves_nothing(make_region):
    # the fault is applied when the clock first moves, so the first cycle still has metrics
    emb = make_region("  - at: 0m\n    fault: metrics_outage\n    duration: 1h\n" + overloads("cmp-00005"))
    emb.configure(app={"enabled": True, "lb_recommendations_auto_run": True},
                  aggregates={LB_AGG: dict(CPU_LB, marker="LB", lb_period=60)})
    run_cycles(emb, 3)
    assert codes(emb, LB_AGG, "LB")[1:] == ["no_metrics", "no_metrics"]  # the first run had metrics
    lb = events_of(emb, LB_AGG, "LB")  # runs without metrics are events an operator reads
    assert [e["state"] for e in lb] == ["healthy", "healthy"]
    assert "no metrics for any hypervisor of agg-002" in lb[-1]["reason"]
    assert db_api.list_recommendations(emb.db) == []


def test_diagnostics_a_vm_excluded_by_metadata_stays_and_its_reason_is_recorded(make_region):
    emb = make_region(dies("cmp-00001"))
    kept, *others = emb.region.hosts["cmp-00001"].vms
    kept.metadata = dict(kept.metadata or {}, ha_no_evacuate="true")
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON})
    run_cycles(emb, 5)
    evacuated = {r["vm_id"] for r in db_api.list_recommendations(emb.db) if r["action"] == "evacuate"}
    assert evacuated == {vm.id for vm in others}
    assert kept.host == "cmp-00001"
    acted = [e for e in events_of(emb, HA_AGG) if "[recommendations_final]" in e["reason"]]
    assert len(acted) == 1 and acted[0]["reason_code"] == "excluded_by_metadata"
    assert "VM %s excluded by metadata key ha_no_evacuate" % kept.id in acted[0]["reason"]
    assert "[vms_remain]" in acted[0]["reason"] and acted[0]["state"] == "warning"
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "error"  # not empty: no maintenance


def test_a_nova_outage_is_insufficient_evidence_on_the_event_and_the_cycle(make_region):
    # the host dies at 1m; Nova answers 503 from 1m to 11m: nothing is fenced while Nova is silent
    emb = make_region(dies("cmp-00001") + "  - at: 1m\n    fault: nova_api_503\n    duration: 10m\n")
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON})
    emb.advance(90)
    run_cycles(emb, 2)
    ha_events = events_of(emb, HA_AGG, "HA")
    assert [(e["reason_code"], e["state"]) for e in ha_events] == [("insufficient_evidence", "warning")] * 2
    assert "the nova source failed this cycle" in ha_events[-1]["reason"]
    assert db_api.list_recommendations(emb.db) == []
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "ok"
    cycle = db_api.page_cycles(emb.db, 1)[0]
    assert cycle["reason_code"] == "sources_failed" and "nova failed" in cycle["reason"]


def test_on_local_storage_ha_evacuates_volume_backed_vms_and_never_rebuilds_a_disk(make_region):
    emb = make_region(dies("cmp-00001"), instance_storage="local")
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: dict(ON, storage_mode="local")})
    vms = emb.region.hosts["cmp-00001"].vms
    volume_backed = {vm.id for vm in vms if vm.volume_backed}
    image_backed = {vm.id for vm in vms if not vm.volume_backed}
    assert volume_backed and image_backed  # the scenario's seed gives both kinds
    run_cycles(emb, 5)
    evacuated = {r["vm_id"] for r in db_api.list_recommendations(emb.db) if r["action"] == "evacuate"}
    assert evacuated == volume_backed
    assert {emb.region.vms[v].host for v in image_backed} == {"cmp-00001"}
    assert emb.region.rebuilt_vms == []
    acted = [e for e in events_of(emb, HA_AGG) if "[recommendations_final]" in e["reason"]]
    assert "[local_disk]" in acted[0]["reason"] and acted[0]["state"] == "warning"
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "error"


def test_ha_waits_for_the_storage_mode_and_the_cycle_says_why(make_region):
    emb = make_region(dies("cmp-00001"))
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: {"marker": "HA", "no_op_mode": False}})
    run_cycles(emb, 3)
    assert events_of(emb, HA_AGG) == []
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "ok"
    cycle = db_api.page_cycles(emb.db, 1)[0]
    assert "agg-001: [storage_undeclared]" in cycle["reason"]


def test_a_host_returned_to_service_is_watched_again_and_handled_when_it_dies_again(make_region):
    timeline = dies("cmp-00001") + ("  - at: 8m\n    fault: host_recovers\n    hosts: [cmp-00001]\n"
                                    + dies("cmp-00001", at="13m"))
    emb = make_region(timeline)
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON})
    run_cycles(emb, 5)
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "maintenance"
    db_api.request_hypervisor_restore(emb.db, "cmp-00001", "admin")
    run_cycles(emb, 1)
    waiting = db_api.get_hypervisor_state(emb.db, "cmp-00001")
    assert waiting["state"] == "restoring" and "waiting for its compute service" in waiting["reason"]
    assert codes(emb, HA_AGG)[-1] == "already_handled"  # a host being restored is not fenced again
    run_cycles(emb, 3)  # the host is back at 8 min
    service = emb.drivers.cloud.get_service("cmp-00001")
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "ok"
    assert not service.forced_down and service.status == "enabled"
    first = {e["id"] for e in events_of(emb, HA_AGG) if e["reason_code"] == "recommendations_final"}
    run_cycles(emb, 7)  # dies again at 13 min
    state = db_api.get_hypervisor_state(emb.db, "cmp-00001")
    assert state["state"] in ("fenced", "maintenance") and state["event_id"] not in first


def test_records_carry_simulated_time_and_the_manual_timeout_fires_on_it(make_region):
    emb = make_region(overloads("cmp-00005"))
    emb.configure(app={"enabled": True, "lb_recommendations_auto_run": False,
                       "executor_manual_action_timeout": 1},
                  aggregates={LB_AGG: dict(CPU_LB, marker="LB", lb_period=60)})
    run_cycles(emb, 2)
    manual = [r for r in db_api.list_recommendations(emb.db) if r["action"] == "live_migrate"]
    assert manual, "LB recommended nothing"
    first = manual[0]
    simulated_now = runner.as_datetime(emb.region.clock.now)
    assert abs((simulated_now - first["created_at"]).total_seconds()) < 300  # region time, not the wall's
    run_cycles(emb, 2)  # two simulated minutes later: past the 1-minute manual timeout
    first = db_api.get_recommendation(emb.db, first["id"])
    assert first["status"] == "cancelled" and "executor_manual_action_timeout" in first["reason"]


def test_runs_with_nothing_to_do_are_recorded_on_the_cycle_not_as_events(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON, LB_AGG: dict(CPU_LB, marker="LB", lb_period=180)})
    run_cycles(emb, 3)
    assert events_of(emb) == []  # nothing failed, nothing overloaded: the aggregates' histories stay empty
    assert codes(emb, HA_AGG, "HA") == ["no_failure"] * 3
    assert codes(emb, LB_AGG, "LB") == ["no_overload", "lb_too_early", "lb_too_early"]
    newest = db_api.get_cycle_summary(emb.db, db_api.page_cycles(emb.db, 1)[0]["id"])
    too_early = [o for o in newest["outcomes"] if o["kind"] == "LB"][0]
    first = db_api.get_cycle_summary(emb.db, min(c["id"] for c in db_api.page_cycles(emb.db, 10)))
    ran_at = [o for o in first["outcomes"] if o["kind"] == "LB"][0]["ran_at"]
    assert (too_early["next_run_at"] - ran_at).total_seconds() == 180  # lb_period after the last real run


def test_a_cycle_that_processed_every_aggregate_says_so(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={HA_AGG: ON, LB_AGG: dict(CPU_LB, marker="LB")})
    run_cycles(emb, 1)
    cycle = db_api.page_cycles(emb.db, 1)[0]
    assert (cycle["status"], cycle["reason_code"]) == ("completed", "all_processed")
    assert "every aggregate processed (2)" in cycle["reason"]


def test_an_event_whose_manual_recommendations_an_operator_cancelled_is_settled_by_the_next_cycle(make_region):
    emb = make_region(overloads("cmp-00005"))
    emb.configure(app={"enabled": True, "lb_recommendations_auto_run": False},
                  aggregates={LB_AGG: dict(CPU_LB, marker="LB", lb_period=60)})
    run_cycles(emb, 2)
    waiting = [r for r in db_api.list_recommendations(emb.db) if r["status"] == "manual_action"]
    assert waiting, "LB recommended nothing"
    for rec in waiting:  # what the API records; its cast to the engine is lost
        db_api.request_recommendation_cancel(emb.db, rec["id"], "admin")
    run_cycles(emb, 1)
    event = db_api.get_event_summary(emb.db, waiting[0]["event_id"])
    assert (event["status"], event["state"], event["reason_code"]) == ("completed", "warning", "overloaded")
    assert "[recommendations_final] %d cancelled" % len(waiting) in event["reason"]
