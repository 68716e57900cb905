"""Retention: finished history older than the cut-off goes; what unfinished work or a held host needs stays."""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm import exception

OLD = datetime.datetime(2026, 1, 1)
CUT = datetime.datetime(2026, 6, 1)
NEW = datetime.datetime(2026, 7, 1)


def _event(session, event_id, finished_at, status="completed", cycle_id=None):
    session.add(models.Event(id=event_id, aggregate_name="agg", kind="HA", marker="HA", status=status,
                             cycle_id=cycle_id, created_at=finished_at, updated_at=finished_at,
                             finished_at=finished_at if status == "completed" else None))


def _rec(session, rec_id, event_id, status):
    session.add(models.Recommendation(id=rec_id, event_id=event_id, action="evacuate", vm_id="vm-" + rec_id,
                                      source_host="cmp-1", target_host="cmp-2", ha_round=1, status=status,
                                      created_at=OLD, updated_at=OLD))
    session.flush()
    session.add(models.Operation(recommendation_id=rec_id, kind="start", attempt=1, created_at=OLD))


@pytest.fixture
def history(sqlite_db):
    with sqlite_db.writer() as session:
        session.add_all([models.Cycle(id=1, status="completed", started_at=OLD, finished_at=OLD),
                         models.Cycle(id=2, status="completed", started_at=OLD, finished_at=OLD),
                         models.Cycle(id=3, status="completed", started_at=NEW, finished_at=NEW),
                         models.Cycle(id=4, status="running", started_at=OLD)])
        session.flush()
        _event(session, "gone", OLD, cycle_id=1)
        _event(session, "recent", NEW)
        _event(session, "open-rec", OLD, cycle_id=2)
        _event(session, "unfinished", OLD, status="executing")
        _event(session, "held", OLD)
        session.flush()
        _rec(session, "r-gone", "gone", "succeeded")
        _rec(session, "r-open", "open-rec", "running")
        session.add(models.HypervisorState(host="cmp-1", state="maintenance", event_id="held"))
        session.add_all([models.VMHistory(vm_id="vm-1", action="evacuate", status="succeeded",
                                          started_at=OLD, finished_at=OLD),
                         models.VMHistory(vm_id="vm-1", action="evacuate", status="running", started_at=OLD),
                         models.VMHistory(vm_id="vm-1", action="stop", status="succeeded",
                                          started_at=NEW, finished_at=NEW)])
    return sqlite_db


def test_finished_history_before_the_cut_is_purged_and_what_work_needs_stays(history):
    counts = db_api.purge_history(history, CUT)
    assert counts == {"events": 1, "recommendations": 1, "operations": 1, "cycles": 1, "vm_history": 1}
    with history.reader() as session:
        assert sorted(e.id for e in session.query(models.Event)) == [
            "held", "open-rec", "recent", "unfinished"]
        assert sorted(c.id for c in session.query(models.Cycle)) == [2, 3, 4]
        assert [h.status for h in session.query(models.VMHistory).order_by(models.VMHistory.id)] == [
            "running", "succeeded"]
    assert db_api.purge_history(history, CUT) == dict.fromkeys(counts, 0)


def test_the_cut_off_must_be_a_datetime(sqlite_db):
    with pytest.raises(exception.InvalidField, match="before"):
        db_api.purge_history(sqlite_db, "2026-06-01")
