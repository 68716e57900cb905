"""Cycles (MasterFlow runs): started, requested by an operator, claimed, finished, listed."""

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm.db import outcomes
from keyvrm import exception
from keyvrm.model import states


def start_cycle(db):
    """Record that a cycle started; returns its id."""
    with db.writer() as session:
        row = models.Cycle(status=states.CycleStatus.RUNNING)
        session.add(row)
        session.flush()
        return row.id


def finish_cycle(db, cycle_id, status, reason_code=None, reason=None, snapshot_id=None):
    """Record how a cycle ended; ``skipped`` and ``failed`` need a reason.

    Finishing a cycle again with the status it already has changes nothing: the finishing
    task runs again when its engine lost the database after the commit.
    """
    common.check_choice("status", status, states.CYCLE_FINISHED)
    if status != states.CycleStatus.COMPLETED and not reason:
        raise exception.InvalidField("reason", f"a {status} cycle needs a reason")
    with db.writer() as session:
        row = session.get(models.Cycle, cycle_id, with_for_update=True)
        if row is None:
            raise exception.NotFound(f"cycle {cycle_id} not found")
        if row.status == status:
            return
        states.check_move("cycle.status", row.status, status, f"cycle {cycle_id}")
        row.status, row.reason_code, row.reason = status, reason_code, reason
        row.snapshot_id = snapshot_id if snapshot_id is not None else row.snapshot_id
        row.finished_at = db.now()


def request_cycle(db, requested_by):
    """Record that an operator asked for a cycle now (a ``requested`` cycle row); its id."""
    with db.writer() as session:
        row = models.Cycle(status=states.CycleStatus.REQUESTED, reason_code="requested",
                           reason=f"cycle requested by {requested_by}")
        session.add(row)
        session.flush()
        return row.id


def claim_requested_cycle(db):
    """Take the oldest ``requested`` cycle for running (-> ``running``); its id, or None.

    One conditional UPDATE, so two engines never claim the same request.
    """
    with db.writer() as session:
        for cycle_id in session.execute(sa.select(models.Cycle.id).where(
                models.Cycle.status == states.CycleStatus.REQUESTED).order_by(models.Cycle.id)).scalars():
            result = session.execute(
                sa.update(models.Cycle).where(models.Cycle.id == cycle_id,
                                              models.Cycle.status == states.CycleStatus.REQUESTED)
                .values(status=states.CycleStatus.RUNNING, started_at=db.now())
                .execution_options(synchronize_session=False))
            if result.rowcount == 1:
                return cycle_id
    return None


def page_cycles(db, limit, marker=None, status=None):
    """One page of cycles, newest first, optionally of one status."""
    query = sa.select(models.Cycle)
    if status is not None:
        common.check_choice("status", status, states.CycleStatus)
        query = query.where(models.Cycle.status == status)
    with db.reader() as session:
        marker_row = common.marker_row(session, models.Cycle, marker)
        query = common.keyset(query, models.Cycle.id, models.Cycle.id, marker_row, descending=True)
        return [common.columns(r, models.Cycle) for r in session.execute(query.limit(limit)).scalars()]


def get_cycle_summary(db, cycle_id):
    """One cycle with the count of events it created and its aggregates' no-op outcomes."""
    with db.reader() as session:
        row = common.row_or_404(session, models.Cycle, cycle_id, "cycle")
        values = common.columns(row, models.Cycle)
        values["event_count"] = session.execute(sa.select(sa.func.count()).where(
            models.Event.cycle_id == cycle_id)).scalar_one()
        values["outcomes"] = outcomes.cycle_outcomes(session, cycle_id)
        return values


def fail_lost_cycle(db, cycle_id, reason_code, reason):
    """Mark a cycle nothing runs any more ``failed`` with its reason; False if it had ended meanwhile."""
    with db.writer() as session:
        result = session.execute(
            sa.update(models.Cycle).where(models.Cycle.id == cycle_id,
                                          models.Cycle.status == states.CycleStatus.RUNNING)
            .values(status=states.CycleStatus.FAILED, reason_code=reason_code, reason=reason, finished_at=db.now())
            .execution_options(synchronize_session=False))
        return result.rowcount == 1
