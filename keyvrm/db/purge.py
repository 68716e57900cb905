"""History retention: finished history older than a cut-off deleted in committed batches, children first.

As nova's ``archive_deleted_rows``: each batch selects at most ``max_rows`` ids of one
table and deletes them in a transaction of its own, so no transaction holds locks (or,
on SQLite, the database's write lock) for longer than one batch, a statement never
carries more than ``BIND_LIMIT`` bound ids (SQLite refuses past ~32k), and a purge that
is interrupted leaves only whole batches done; the next one carries on. The parents
that may go (events, cycles, VM history) are taken in pages of ``max_rows`` in key
order; within a page their children go before them: operations, recommendations,
events; then cycle outcomes, cycles; then VM history. The pages walk the key forward,
so the work grows with the rows purged, not with their square.

What goes: completed events that ended before the cut-off whose recommendations are all
final and that no hypervisor state points to (with their recommendations and
operations), finished cycles no event refers to any more (with their outcomes), and
finished VM history rows. Unfinished events, recommendations and cycles, and anything a
host KeyVRM holds out of service refers to, are never touched.
"""

from __future__ import annotations

import datetime
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy import orm

from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import states

TABLES = ("operations", "recommendations", "events", "cycle_outcomes", "cycles", "vm_history")
BIND_LIMIT = 500  # ids bound in one DELETE (well under SQLite's oldest limit, 999)


def _purgeable_events(before):
    """Events the purge may delete: completed before ``before``, no open recommendation, no host holds them."""
    event, rec, state = models.Event, orm.aliased(models.Recommendation), models.HypervisorState
    open_rec = sa.select(rec.id).where(rec.event_id == event.id,
                                       rec.status.notin_(states.RECOMMENDATION_FINAL)).correlate(event)
    held = sa.select(state.host).where(state.event_id == event.id).correlate(event)
    return sa.select(event.id).where(event.status == states.EventStatus.COMPLETED, event.finished_at < before,
                                     ~open_rec.exists(), ~held.exists())


def _purgeable_cycles(before):
    """Finished cycles begun before ``before`` that no event refers to."""
    cycle, event = models.Cycle, orm.aliased(models.Event)
    referenced = sa.select(event.id).where(event.cycle_id == cycle.id).correlate(cycle)
    return sa.select(cycle.id).where(cycle.status.in_(states.CYCLE_FINISHED), cycle.started_at < before,
                                     ~referenced.exists())


def _finished_vm_history(before):
    """Finished VM history rows begun before ``before``."""
    history = models.VMHistory
    return sa.select(history.id).where(history.finished_at.is_not(None), history.started_at < before)


def _event_family(events):
    """An event page's rows, children first: (table, primary key, select of ids)."""
    op, rec = models.Operation, models.Recommendation
    recs = sa.select(rec.id).where(rec.event_id.in_(events))
    return (("operations", op.id, sa.select(op.id).where(op.recommendation_id.in_(recs))),
            ("recommendations", rec.id, recs),
            ("events", models.Event.id, events))


def _cycle_family(cycles):
    """A cycle page's rows, children first: (table, primary key, select of ids)."""
    outcome = models.CycleOutcome
    return (("cycle_outcomes", outcome.id, sa.select(outcome.id).where(outcome.cycle_id.in_(cycles))),
            ("cycles", models.Cycle.id, cycles))


def _vm_history_family(rows):
    return (("vm_history", models.VMHistory.id, rows),)


# (what may go, its key, its rows and their children), parents whose children go first first
FAMILIES = ((_purgeable_events, models.Event.id, _event_family),
            (_purgeable_cycles, models.Cycle.id, _cycle_family),
            (_finished_vm_history, models.VMHistory.id, _vm_history_family))


def _page_end(db, select_keys, key, after, max_rows):
    """The last key of the next ``max_rows`` selected rows past ``after`` (None: none left).

    Walking the key forward, each page's select reads only as far as its own rows (and
    the rows not to purge between them), never again through those pages before it took.
    """
    if after is not None:
        select_keys = select_keys.where(key > after)
    with db.reader() as session:
        keys = list(session.execute(select_keys.order_by(key).limit(max_rows)).scalars())
    return keys[-1] if keys else None


def _delete_batch(db, key, select_ids, max_rows) -> int:
    """Delete up to ``max_rows`` of the selected rows in one transaction; how many it deleted."""
    with db.writer() as session:
        ids = list(session.execute(select_ids.limit(max_rows)).scalars())
        deleted = 0
        for start in range(0, len(ids), BIND_LIMIT):
            chunk = ids[start:start + BIND_LIMIT]
            deleted += session.execute(sa.delete(key.table).where(key.in_(chunk))
                                       .execution_options(synchronize_session=False)).rowcount
    return deleted


def batches(db, before, max_rows: int) -> Iterator[tuple[str, int]]:
    """Purge history older than ``before`` (naive UTC) to the end; (table, rows) after each committed batch.

    Only batches that deleted rows are yielded; within each page children come before
    their parents (``TABLES`` is that order). The caller
    may stop between two batches: what was deleted stays deleted, the rest waits for the
    next purge. ``InvalidField`` for a cut-off that is not a datetime or ``max_rows`` below 1.
    """
    if not isinstance(before, datetime.datetime):
        raise exception.InvalidField("before", "must be a date and time")
    if max_rows < 1:
        raise exception.InvalidField("max_rows", "must be at least 1, got %r" % max_rows)
    return _each_batch(db, before, max_rows)


def _each_batch(db, before, max_rows):
    for purgeable, key, family in FAMILIES:
        select_keys, after = purgeable(before), None
        while (last := _page_end(db, select_keys, key, after, max_rows)) is not None:
            page = select_keys.where(key <= last) if after is None else select_keys.where(key > after, key <= last)
            for table, table_key, select_ids in family(page):
                deleted = max_rows
                while deleted == max_rows:
                    deleted = _delete_batch(db, table_key, select_ids, max_rows)
                    if deleted:
                        yield table, deleted
            after = last
