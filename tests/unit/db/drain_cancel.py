"""Returning a draining host to service cancels the drain's moves that have not started, atomically.

Shared by the SQLite unit test and the PostgreSQL functional test.
"""

from keyvrm.db import api as db_api
from keyvrm.executor import journal
from keyvrm.model import states
from tests.unit.api import seed

_R = states.RecommendationStatus


def check_restore_cancels_unstarted_drain_moves(db):
    """Waiting moves are cancelled; a running one Nova was not asked for yet gets a cancel request; the rest stay.

    The cancel request is honoured by its executor before it asks; a move Nova was asked for
    (an ``execute`` line) and final ones get nothing.
    """
    seed.seed(db)  # cmp-2 is ok
    db_api.request_hypervisor_drain(db, "cmp-2", "CHG-7", "ada")
    event_id = db_api.create_event(db, "agg-a", "drain", "HA")
    db_api.set_hypervisor_state(db, "cmp-2", states.HypervisorState.DRAINING, reason="drain", event_id=event_id)
    ids = {}
    for name, auto in (("waiting", True), ("manual", False), ("room", True), ("asked", True), ("done", True)):
        ids[name] = db_api.create_recommendation(db, event_id, "live_migrate", "vm-" + name, "cmp-2", "cmp-1", auto)
    for name, path in (("room", (_R.RUNNING,)), ("asked", (_R.RUNNING,)), ("done", (_R.RUNNING, _R.SUCCEEDED))):
        for status in path:
            db_api.set_recommendation_status(db, ids[name], status)
    db_api.add_operation(db, ids["asked"], "execute", 1, "live migration to cmp-1 accepted as migration 7")
    assert db_api.request_hypervisor_restore(db, "cmp-2", "bob")["state"] == "restoring"
    status = {name: db_api.get_recommendation(db, rec_id)["status"] for name, rec_id in ids.items()}
    assert status == {"waiting": "cancelled", "manual": "cancelled", "room": "running", "asked": "running",
                      "done": "succeeded"}
    lines = [op["message"] for op in db_api.list_operations(db, ids["waiting"])]
    assert lines == ["drain cancelled: cmp-2 returned to service by bob"]
    request = journal.cancel_request(db_api.list_operations(db, ids["room"]))
    assert request == "cancel requested by bob: drain of cmp-2 cancelled, it returned to service"
    assert [op["kind"] for op in db_api.list_operations(db, ids["asked"])] == ["execute"]
    assert db_api.list_operations(db, ids["done"]) == []
