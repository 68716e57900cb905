"""An event's reason_code agrees with its outcome: a note on how the run planned never names it."""

from keyvrm.db import api as db_api
from keyvrm.flows import events
from keyvrm.flows import recommend
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


def test_a_settled_event_with_empty_filters_says_recommendations_final_not_no_filters(sqlite_db):
    event = _settled(sqlite_db, [reasons.no_filters()])
    assert (event["status"], event["state"], event["reason_code"]) == ("completed", "healthy", "recommendations_final")
    assert "[no_filters]" in event["reason"]  # the note is still there to read


def test_a_finding_outranks_a_note_and_an_error_outranks_both(sqlite_db):
    event = _settled(sqlite_db, [reasons.no_filters(), reasons.no_marker("agg-9")])
    assert event["reason_code"] == "no_marker"
    event = _settled(sqlite_db, [reasons.no_filters(), reasons.fencing_impossible("cmp-1", "BMC")], "agg-2")
    assert (event["reason_code"], event["state"]) == ("fencing_impossible", "error")


def test_a_run_that_created_nothing_names_its_finding_not_the_empty_filters(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "LB", "LB", None)
    events.complete_event(sqlite_db, event_id, "healthy", [reasons.no_filters(), reasons.no_overload("agg-1", 80.0)])
    assert db_api.get_event_summary(sqlite_db, event_id)["reason_code"] == "no_overload"


def test_two_settles_that_race_leave_one_count_and_each_reason_once(sqlite_db, monkeypatch):
    event_id = events.open_event(sqlite_db, None, "agg-3", "LB", "LB", None)
    events.add_reasons(sqlite_db, event_id, [reasons.no_overload("agg-3", 80.0)])
    moves = (plan.PlannedMove("vm-1", plan.LIVE_MIGRATE, "cmp-1", "cmp-2"),)
    for rec_id in recommend.create_recommendations(sqlite_db, event_id, moves, auto_run=True):
        db_api.set_recommendation_status(sqlite_db, rec_id, "running")
        db_api.set_recommendation_status(sqlite_db, rec_id, "succeeded")
    stale = db_api.get_event_summary(sqlite_db, event_id)  # what the slower settle read first
    events.settle(sqlite_db, event_id)
    real = db_api.get_event_summary
    reads = []

    def summary(db, eid):
        reads.append(eid)
        return stale if len(reads) == 1 else real(db, eid)

    monkeypatch.setattr(db_api, "get_event_summary", summary)
    # its own completion was overwritten by the faster settle's final write before it read back
    monkeypatch.setattr(events.executor_events, "settle_event", lambda db, eid: "healthy")
    events.settle(sqlite_db, event_id)
    monkeypatch.setattr(db_api, "get_event_summary", real)
    event = db_api.get_event_summary(sqlite_db, event_id)
    assert event["reason"].count("[recommendations_final]") == 1
    assert event["reason"].startswith("[recommendations_final] 1 succeeded; ")
    assert event["reason"].count("[no_overload]") == 1
