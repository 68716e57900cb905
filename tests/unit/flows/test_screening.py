"""Screening: quiet aggregates get their outcome without a persisted flow; acting ones get their flow."""

from keyvrm.db import api as db_api
from keyvrm.demo import embedded
from keyvrm.flows import events
from keyvrm.flows import master
from keyvrm.flows import resources
from keyvrm.planning import reasons
from keyvrm.scenarios import expect
from keyvrm.scenarios import harness
from tests.unit.flows import regions

HA_ON = {"marker": "HA+LB", "no_op_mode": False, "storage_mode": "shared"}


def _count_flows(emb):
    """Count the flows the dispatcher persists, by name."""
    started = {}
    create = emb._persistence.create

    def counting(flow_name, store, mode):
        started[flow_name] = started.get(flow_name, 0) + 1
        return create(flow_name, store, mode)

    emb._persistence.create = counting
    return started


def _cycle(emb):
    assert emb.run_cycle(120)
    emb.advance(60.0)


def test_quiet_aggregates_are_recorded_on_the_cycle_without_a_flow_of_their_own(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True},
                  aggregates={regions.HA_AGG: HA_ON, regions.LB_AGG: dict(regions.CPU_LB, marker="LB")})
    started = _count_flows(emb)
    for _ in range(2):
        _cycle(emb)
    assert started == {"master": 2}
    assert expect.run_codes(emb.db, regions.HA_AGG, "HA") == ["no_failure"] * 2
    assert expect.run_codes(emb.db, regions.HA_AGG, "LB") == ["no_overload", "lb_too_early"]
    assert expect.run_codes(emb.db, regions.LB_AGG, "LB") == ["no_overload", "lb_too_early"]
    assert db_api.list_events(emb.db) == []


def test_a_host_to_fence_gets_its_flow_and_a_host_to_relieve_its_recommendations_in_the_cycle(make_region):
    emb = make_region(regions.dies("cmp-00002", at="0m") + regions.overloads("cmp-00005"))
    emb.configure(app={"enabled": True},
                  aggregates={regions.HA_AGG: HA_ON, regions.LB_AGG: dict(regions.CPU_LB, marker="LB")})
    emb.advance(120.0)  # Nova sees cmp-00002 down, its heartbeat is stale, cmp-00005 is hot
    started = _count_flows(emb)
    _cycle(emb)
    assert started.get("ha_lb") == 1 and "lb" not in started
    kinds = sorted((e["aggregate_name"], e["kind"], e["status"]) for e in db_api.list_events(emb.db))
    assert kinds == [(regions.HA_AGG, "HA", "completed"), (regions.LB_AGG, "LB", "manual_action")]
    (lb_event,) = db_api.list_events(emb.db, kind="LB")
    waiting = db_api.list_recommendations(emb.db, event_id=lb_event["id"])
    assert waiting and {r["source_host"] for r in waiting} == {"cmp-00005"}


def test_a_screening_run_again_after_a_crash_records_each_outcome_once(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    _cycle(emb)
    cycle_id = db_api.page_cycles(emb.db, 1)[0]["id"]
    before = db_api.list_cycle_outcomes(emb.db, cycle_id)
    started = _count_flows(emb)
    task = master.DispatchAggregates(emb.dispatcher.resources)
    snapshot_id = db_api.page_cycles(emb.db, 1)[0]["snapshot_id"]
    again = task.execute(True, cycle_id, snapshot_id, [], [])
    assert again["flows"] == {} and started == {}
    assert db_api.list_cycle_outcomes(emb.db, cycle_id) == before and len(before) == 3


def test_every_aggregate_has_its_own_outcome_in_every_cycle_also_when_not_processed(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={
        regions.HA_AGG: {"marker": "HA", "no_op_mode": False},  # storage mode undeclared: HA does not run
        regions.LB_AGG: {"marker": "LB", "no_op_mode": True, "no_op_reason": "maintenance CHG-42"}})
    _cycle(emb)
    emb.configure(app={"enabled": False})
    _cycle(emb)
    first, second = sorted(c["id"] for c in db_api.page_cycles(emb.db, 2))
    assert {(o["aggregate_name"], o["kind"], o["reason_code"]) for o in db_api.list_cycle_outcomes(emb.db, first)} \
        == {(regions.HA_AGG, "NOOP", "storage_undeclared"), (regions.LB_AGG, "NOOP", "noop")}
    assert {(o["aggregate_name"], o["reason_code"]) for o in db_api.list_cycle_outcomes(emb.db, second)} \
        == {(regions.HA_AGG, "disabled"), (regions.LB_AGG, "disabled")}
    noop = next(o for o in db_api.list_cycle_outcomes(emb.db, first) if o["aggregate_name"] == regions.LB_AGG)
    assert "maintenance CHG-42" in noop["reasons"]["entries"][0]["message"]


def test_an_aggregates_latest_outcome_is_its_own_from_the_newest_finished_cycle(make_region):
    emb = make_region()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    _cycle(emb)
    finished = db_api.page_cycles(emb.db, 1)[0]["id"]
    running = db_api.start_cycle(emb.db)  # a cycle still running has recorded agg-002's outcome already
    db_api.record_cycle_outcomes(emb.db, running, [dict(
        aggregate_name=regions.LB_AGG, kind="NOOP", reason_code="noop",
        reasons=events.describe([reasons.noop(regions.LB_AGG, "from the running cycle")])[1], ran_at=db_api.utcnow())])
    mine = db_api.latest_outcome(emb.db, regions.HA_AGG)
    theirs = db_api.latest_outcome(emb.db, regions.LB_AGG)
    assert mine["cycle_id"] == theirs["cycle_id"] == finished
    assert {(o["aggregate_name"], o["kind"], o["reason_code"]) for o in mine["outcomes"]} == {
        (regions.HA_AGG, "HA", "no_failure"), (regions.HA_AGG, "LB", "no_overload")}
    assert [(o["kind"], o["reason_code"]) for o in theirs["outcomes"]] == [("NOOP", "no_marker")]
    assert db_api.latest_outcome(emb.db, "agg-unknown") is None


def test_a_failover_shortfall_is_on_every_quiet_run_and_alerted_once_when_it_starts_and_once_when_it_clears(
        make_region):
    # the analysis searches single hosts only: the tolerance is 1, short of a reserve of 2
    emb = make_region(flow_settings=resources.FlowSettings(executor=embedded.SIM_EXECUTOR, failover_max_k=1))
    notifier = harness.RecordingNotifier(emb.clock)
    emb.dispatcher.resources.notifier = notifier
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: dict(HA_ON, ha_failover_reserve=2)})
    for _ in range(3):
        _cycle(emb)
    emb.configure(aggregates={regions.HA_AGG: {"ha_failover_reserve": 1}})
    for _ in range(2):
        _cycle(emb)
    assert expect.run_codes(emb.db, regions.HA_AGG, "HA") == [reasons.INSUFFICIENT_FAILOVER_CAPACITY] * 3 + [
        "no_failure"] * 2
    assert [(a.kind, a.payload["aggregate"], a.payload["cleared"], a.payload["tolerance"])
            for a in notifier.alerts] == [("failover", regions.HA_AGG, False, 1), ("failover", regions.HA_AGG, True, 1)]
    assert db_api.list_events(emb.db) == []
