"""An event's reason_code agrees with its outcome: a note on how the run planned never names it."""

from keyvrm.db import api as db_api
from keyvrm.flows import events
from keyvrm.flows import recommend
from keyvrm.model import reason_list
from keyvrm.planning import plan
from keyvrm.planning import reasons


def _settled(db, found, aggregate="agg-1", status="succeeded"):
    event_id = events.open_event(db, None, aggregate, "HA", "HA", None)
    events.add_reasons(db, event_id, found)
    moves = (plan.PlannedMove("vm-1", plan.EVACUATE, "cmp-1", "cmp-2", ha_round=1),)
    for rec_id in recommend.create_recommendations(db, event_id, moves, auto_run=True):
        db_api.set_recommendation_status(db, rec_id, "running")
        db_api.set_recommendation_status(db, rec_id, status)
    events.settle(db, event_id)
    return db_api.get_event_summary(db, event_id)


def _entries(event):
    return [(e.code, e.message) for e in reason_list.ReasonList.from_json(event["reasons"]).entries]


def test_a_settled_event_with_empty_filters_says_recommendations_final_not_no_filters(sqlite_db):
    event = _settled(sqlite_db, [reasons.no_filters()])
    assert (event["status"], event["state"], event["reason_code"]) == ("completed", "healthy", "recommendations_final")
    assert _entries(event) == [("recommendations_final", "1 succeeded"),  # the note is still there to read
                               ("no_filters", reasons.no_filters().message)]


def test_a_finding_outranks_a_note_and_an_error_outranks_both(sqlite_db):
    event = _settled(sqlite_db, [reasons.no_filters(), reasons.no_marker("agg-9")])
    assert event["reason_code"] == "no_marker"
    event = _settled(sqlite_db, [reasons.no_filters(), reasons.fencing_impossible("cmp-1", "BMC")], "agg-2")
    assert (event["reason_code"], event["state"]) == ("fencing_impossible", "error")


def test_a_run_that_created_nothing_names_its_finding_not_the_empty_filters(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "LB", "LB", None)
    events.complete_event(sqlite_db, event_id, "healthy", [reasons.no_filters(), reasons.no_overload("agg-1", 80.0)])
    assert db_api.get_event_summary(sqlite_db, event_id)["reason_code"] == "no_overload"


def test_a_second_settle_leaves_the_completed_event_as_the_first_wrote_it(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-3", "LB", "LB", None)
    events.add_reasons(sqlite_db, event_id, [reasons.no_overload("agg-3", 80.0)])
    moves = (plan.PlannedMove("vm-1", plan.LIVE_MIGRATE, "cmp-1", "cmp-2"),)
    for rec_id in recommend.create_recommendations(sqlite_db, event_id, moves, auto_run=True):
        db_api.set_recommendation_status(sqlite_db, rec_id, "running")
        db_api.set_recommendation_status(sqlite_db, rec_id, "succeeded")
    assert events.settle(sqlite_db, event_id) == "healthy"
    first = db_api.get_event_summary(sqlite_db, event_id)
    assert events.settle(sqlite_db, event_id, at_least="warning") == "healthy"  # the sweep's, after the run's
    assert db_api.get_event_summary(sqlite_db, event_id) == first
    assert _entries(first) == [("no_overload", reasons.no_overload("agg-3", 80.0).message),
                               ("recommendations_final", "1 succeeded")]
    [settled] = [e for e in reason_list.ReasonList.from_json(first["reasons"]).entries
                 if e.code == "recommendations_final"]
    assert dict(settled.details) == {"succeeded": 1}  # the counts, as numbers


def test_an_event_with_an_open_recommendation_is_not_settled(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-4", "LB", "LB", None)
    moves = (plan.PlannedMove("vm-1", plan.LIVE_MIGRATE, "cmp-1", "cmp-2"),
             plan.PlannedMove("vm-2", plan.LIVE_MIGRATE, "cmp-1", "cmp-3"))
    first, second = recommend.create_recommendations(sqlite_db, event_id, moves, auto_run=True)
    db_api.set_recommendation_status(sqlite_db, first, "running")
    db_api.set_recommendation_status(sqlite_db, first, "failed")
    assert events.settle(sqlite_db, event_id) is None
    assert db_api.get_event_summary(sqlite_db, event_id)["status"] == "generating"
    db_api.set_recommendation_status(sqlite_db, second, "cancelled")
    assert events.settle(sqlite_db, event_id) == "warning"
    event = db_api.get_event_summary(sqlite_db, event_id)
    assert (event["status"], event["state"], event["reason_code"]) == ("completed", "warning",
                                                                       "recommendations_final")
    assert _entries(event) == [("recommendations_final", "1 failed, 1 cancelled")]
    assert event["finished_at"] is not None


def test_an_event_without_recommendations_settles_healthy_with_nothing_to_do(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-5", "LB", "LB", None)
    assert events.settle(sqlite_db, event_id) == "healthy"
    assert _entries(db_api.get_event_summary(sqlite_db, event_id)) == [("recommendations_final", "nothing to do")]
