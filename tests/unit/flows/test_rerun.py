"""A flow task that runs again after a crash finds what it already recorded instead of duplicating it."""

from keyvrm.db import api as db_api
from keyvrm.flows import events
from keyvrm.flows import recommend
from keyvrm.model import reason_list
from keyvrm.planning import plan
from keyvrm.planning import reasons


def _moves():
    return (plan.PlannedMove("vm-1", plan.EVACUATE, "cmp-1", "cmp-2", ha_round=1),
            plan.PlannedMove("vm-2", plan.EVACUATE, "cmp-1", "cmp-3", ha_round=1))


def test_opening_the_cycles_event_again_finds_it(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [])
    cycle_id = db_api.start_cycle(sqlite_db)
    first = events.open_event(sqlite_db, cycle_id, "agg-1", "HA", "HA", None)
    assert events.open_event(sqlite_db, cycle_id, "agg-1", "HA", "HA", None) == first
    assert events.open_event(sqlite_db, cycle_id, "agg-1", "LB", "HA+LB", None) != first
    assert len(db_api.list_events(sqlite_db, aggregate_name="agg-1")) == 2


def test_creating_the_same_moves_again_creates_no_recommendation(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "HA", "HA", None)
    first = recommend.create_recommendations(sqlite_db, event_id, _moves(), auto_run=True)
    again = recommend.create_recommendations(sqlite_db, event_id, _moves(), auto_run=True)
    assert again == first and len(db_api.list_recommendations(sqlite_db, event_id=event_id)) == 2
    round2 = recommend.create_recommendations(
        sqlite_db, event_id, (plan.PlannedMove("vm-1", plan.EVACUATE, "cmp-1", "cmp-4", ha_round=2),), True)
    assert round2[0] not in first


def test_a_reason_recorded_twice_is_kept_once_and_an_error_reason_leads(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "HA", "HA", None)
    events.add_reasons(sqlite_db, event_id, [reasons.no_filters()])
    events.add_reasons(sqlite_db, event_id, [reasons.no_filters(), reasons.fencing_impossible("cmp-1", "BMC")])
    event = db_api.get_event_summary(sqlite_db, event_id)
    codes = [e.code for e in reason_list.ReasonList.from_json(event["reasons"]).entries]
    assert codes == ["fencing_impossible", "no_filters"]  # each once, the error first
    assert event["reason_code"] == "fencing_impossible"
    assert events.settle(sqlite_db, event_id) == "error"  # no recommendation, but a host not fenced
