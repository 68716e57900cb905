"""Retention: finished history older than a date is deleted; rows still needed stay."""

import datetime

import sqlalchemy as sa

from keyvrm.db import models
from keyvrm import exception


def purge_history(db, before):
    """Delete finished history older than ``before`` (naive UTC); rows still needed stay. Counts per table.

    Removed: completed events that ended before ``before`` whose recommendations are all
    final and that no hypervisor state points to (with their recommendations and
    operations), finished cycles no event refers to any more, and finished VM history
    rows. Unfinished events, recommendations and cycles, and anything a host KeyVRM holds
    out of service refers to, are never touched.
    """
    if not isinstance(before, datetime.datetime):
        raise exception.InvalidField("before", "must be a date and time")
    event, rec, cycle, history = models.Event, models.Recommendation, models.Cycle, models.VMHistory
    open_recs = sa.select(rec.event_id).where(rec.status.notin_(models.RECOMMENDATION_FINAL))
    held = sa.select(models.HypervisorState.event_id).where(models.HypervisorState.event_id.is_not(None))
    old_events = sa.select(event.id).where(event.status == "completed", event.finished_at < before,
                                           event.id.notin_(open_recs), event.id.notin_(held))
    with db.writer() as session:
        event_ids = list(session.execute(old_events).scalars())
        rec_ids = sa.select(rec.id).where(rec.event_id.in_(event_ids))
        operations = session.execute(sa.delete(models.Operation).where(
            models.Operation.recommendation_id.in_(rec_ids))).rowcount
        recommendations = session.execute(sa.delete(rec).where(rec.event_id.in_(event_ids))).rowcount
        events = session.execute(sa.delete(event).where(event.id.in_(event_ids))).rowcount
        referenced = sa.select(event.cycle_id).where(event.cycle_id.is_not(None))
        cycles = session.execute(sa.delete(cycle).where(
            cycle.status.in_(("completed", "skipped", "failed")), cycle.started_at < before,
            cycle.id.notin_(referenced))).rowcount
        vm_history = session.execute(sa.delete(history).where(
            history.finished_at.is_not(None), history.started_at < before)).rowcount
    return {"events": events, "recommendations": recommendations, "operations": operations,
            "cycles": cycles, "vm_history": vm_history}
