"""An event never moves back: a task run again after an engine restart keeps the status the event reached."""

from keyvrm.db import api as db_api


def test_a_rerun_asking_for_a_passed_status_leaves_the_event_where_it_is(sqlite_db):
    event_id = db_api.create_event(sqlite_db, "agg-001", "HA", "HA")
    db_api.set_event_status(sqlite_db, event_id, "executing")
    db_api.set_event_status(sqlite_db, event_id, "generated")  # the HA flow's planning task, run again
    db_api.update_event_reasons(sqlite_db, event_id, lambda stored: None, status="generating")
    assert db_api.get_event_summary(sqlite_db, event_id)["status"] == "executing"
    db_api.set_event_status(sqlite_db, event_id, "completed", state="healthy")
    db_api.set_event_status(sqlite_db, event_id, "executing")
    event = db_api.get_event_summary(sqlite_db, event_id)
    assert (event["status"], event["state"]) == ("completed", "healthy")
