"""Returning a draining host to service cancels the drain's moves that have not started, atomically.

Shared by the SQLite unit test and the PostgreSQL functional test.
"""

from keyvrm.db import api as db_api
from keyvrm.model import states
from tests.unit.api import seed

_R = states.RecommendationStatus


def check_restore_cancels_unstarted_drain_moves(db):
    """Created and manual moves of the drain are cancelled with a journal line; running and final ones are not."""
    seed.seed(db)  # cmp-2 is ok
    db_api.request_hypervisor_drain(db, "cmp-2", "CHG-7", "ada")
    event_id = db_api.create_event(db, "agg-a", "drain", "HA")
    db_api.set_hypervisor_state(db, "cmp-2", states.HypervisorState.DRAINING, reason="drain", event_id=event_id)
    ids = {}
    for name, auto in (("waiting", True), ("manual", False), ("running", True), ("done", True)):
        ids[name] = db_api.create_recommendation(db, event_id, "live_migrate", "vm-" + name, "cmp-2", "cmp-1", auto)
    for name, path in (("running", (_R.RUNNING,)), ("done", (_R.RUNNING, _R.SUCCEEDED))):
        for status in path:
            db_api.set_recommendation_status(db, ids[name], status)
    assert db_api.request_hypervisor_restore(db, "cmp-2", "bob")["state"] == "restoring"
    status = {name: db_api.get_recommendation(db, rec_id)["status"] for name, rec_id in ids.items()}
    assert status == {"waiting": "cancelled", "manual": "cancelled", "running": "running", "done": "succeeded"}
    lines = [op["message"] for op in db_api.list_operations(db, ids["waiting"])]
    assert lines == ["drain cancelled: cmp-2 returned to service by bob"]
    assert db_api.list_operations(db, ids["running"]) == []
