"""Retention: finished history older than the cut-off goes, in committed batches of bounded statements;
what unfinished work or a held host needs stays."""

import datetime

import pytest
import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.db import purge
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


def _outcome(cycle_id):
    return models.CycleOutcome(cycle_id=cycle_id, aggregate_name="agg", kind="LB", reason_code="no_overload",
                               reasons=[], ran_at=OLD)


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
        session.add_all([_outcome(1), _outcome(3)])
        session.add_all([models.VMHistory(vm_id="vm-1", action="evacuate", status="succeeded",
                                          started_at=OLD, finished_at=OLD),
                         models.VMHistory(vm_id="vm-1", action="evacuate", status="running", started_at=OLD),
                         models.VMHistory(vm_id="vm-1", action="stop", status="succeeded",
                                          started_at=NEW, finished_at=NEW)])
    return sqlite_db


def purged(db, before, max_rows=1000):
    counts = dict.fromkeys(purge.TABLES, 0)
    for table, rows in db_api.purge_history(db, before, max_rows):
        counts[table] += rows
    return counts


def test_finished_history_before_the_cut_is_purged_and_what_work_needs_stays(history):
    counts = purged(history, CUT)
    assert counts == {"operations": 1, "recommendations": 1, "events": 1, "cycle_outcomes": 1, "cycles": 1,
                      "vm_history": 1}
    with history.reader() as session:
        assert sorted(e.id for e in session.query(models.Event)) == [
            "held", "open-rec", "recent", "unfinished"]
        assert sorted(c.id for c in session.query(models.Cycle)) == [2, 3, 4]
        assert [h.status for h in session.query(models.VMHistory).order_by(models.VMHistory.id)] == [
            "running", "succeeded"]
        assert [o.cycle_id for o in session.query(models.CycleOutcome)] == [3]
    assert purged(history, CUT) == dict.fromkeys(counts, 0)


def test_the_cut_off_must_be_a_datetime(sqlite_db):
    with pytest.raises(exception.InvalidField, match="before"):
        db_api.purge_history(sqlite_db, "2026-06-01", 1000)
    with pytest.raises(exception.InvalidField, match="max_rows"):
        db_api.purge_history(sqlite_db, CUT, 0)


def test_more_old_events_than_sqlite_binds_are_purged_in_committed_batches_of_bounded_statements(sqlite_db):
    events = 33_000  # past SQLite's 32,766 bound parameters per statement
    with sqlite_db.engine.begin() as connection:
        connection.execute(sa.insert(models.Event), [
            dict(id="e%d" % i, aggregate_name="agg", kind="HA", marker="HA", status="completed",
                 created_at=OLD, updated_at=OLD, finished_at=OLD) for i in range(events)])
        connection.execute(sa.insert(models.Recommendation), [
            dict(id="r%d" % i, event_id="e%d" % i, action="evacuate", vm_id="vm", source_host="cmp-1",
                 status="succeeded", attempts=1, created_at=OLD, updated_at=OLD) for i in range(1500)])
        connection.execute(sa.insert(models.Operation), [
            dict(recommendation_id="r%d" % i, kind="start", attempt=1, created_at=OLD) for i in range(1500)])
    bound = []
    sa.event.listen(sqlite_db.engine, "before_cursor_execute",
                    lambda conn, cursor, statement, parameters, context, many: bound.append(len(parameters)))

    batches = db_api.purge_history(sqlite_db, CUT, 5000)
    first = next(batches)
    with sqlite_db.reader() as session:  # committed: another transaction sees the batch gone
        assert session.query(models.Operation).count() == 1500 - first[1]
        assert session.query(models.Event).count() == events
    rest = list(batches)
    totals = {}
    for table, rows in [first] + rest:
        totals[table] = totals.get(table, 0) + rows
    assert totals == {"operations": 1500, "recommendations": 1500, "events": events}
    assert [rows for table, rows in rest if table == "events"] == [5000] * 6 + [3000]
    with sqlite_db.reader() as session:
        assert session.query(models.Event).count() == 0
    assert max(bound) <= purge.BIND_LIMIT + 5
