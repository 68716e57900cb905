"""Scenario tests: whole cycles through the engine's dispatcher and persistence on the simulated region."""

from keyvrm.db import api as db_api
from keyvrm.executor import runner
from keyvrm.model import reason_list
from keyvrm.scenarios import expect
from tests.unit.flows import regions

ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
HA_AGG, LB_AGG, CPU_LB = regions.HA_AGG, regions.LB_AGG, regions.CPU_LB
overloads = regions.overloads


def run_cycles(emb, count, step_s=60.0):
    for _ in range(count):
        assert emb.run_cycle(120)
        emb.advance(step_s)


def events_of(emb, aggregate=None, kind=None):
    return db_api.list_events(emb.db, aggregate_name=aggregate, kind=kind)


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
    assert expect.run_codes(emb.db, HA_AGG, "HA") == ["no_failure"] * 3
    assert expect.run_codes(emb.db, LB_AGG, "LB") == ["no_overload", "lb_too_early", "lb_too_early"]
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
    settled = [e for e in reason_list.ReasonList.from_json(event["reasons"]).entries
               if e.code == "recommendations_final"]
    assert [(e.message, dict(e.details)) for e in settled] == [("%d cancelled" % len(waiting),
                                                                {"cancelled": len(waiting)})]
