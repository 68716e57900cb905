"""Planned moves become recommendations once, with load calculations as operators read them."""

from keyvrm.db import api as db_api
from keyvrm.flows import recommend
from keyvrm.planning import plan


def _calc(cpu_after):
    return plan.HostLoadCalc(cpu_before_pct=90.0, cpu_after_pct=cpu_after, ram_before_pct=45.0,
                             ram_after_pct=None, net_before_pct=1.0, net_after_pct=1.0,
                             syn_score_before_pct=134.99999999999997, syn_score_after_pct=70.00000000000001)


def test_load_calculations_are_stored_rounded_and_a_rerun_creates_nothing_new(sqlite_db):
    event = db_api.create_event(sqlite_db, "agg", "LB", "LB")
    move = plan.PlannedMove("vm-1", "live_migrate", "h1", "h2",
                            load=plan.LoadCalculation(source=_calc(74.66666666666667), target=_calc(12.3456)))
    ids = recommend.create_recommendations(sqlite_db, event, [move], auto_run=False)
    assert recommend.create_recommendations(sqlite_db, event, [move], auto_run=False) == ids
    stored = db_api.get_recommendation(sqlite_db, ids[0])["load_calculation"]
    assert stored["source"]["syn_score_before_pct"] == 135.0
    assert stored["source"]["cpu_after_pct"] == 74.67 and stored["target"]["cpu_after_pct"] == 12.35
    assert stored["target"]["ram_after_pct"] is None
