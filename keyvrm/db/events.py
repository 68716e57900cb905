"""Events (one HA or LB run of one aggregate): created, moved along their status, settled, listed."""

import uuid

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import settings
from keyvrm.model import states


def create_event(db, aggregate_name, kind, marker, cycle_id=None, snapshot_id=None):
    """Create an event in status ``created``; returns its id."""
    common.check_choice("kind", kind, states.EventKind)
    # an HA or LB run happens only on a marked aggregate; an operator's drain and its failback on any
    operators = (states.EventKind.DRAIN, states.EventKind.FAILBACK)
    common.check_choice("marker", marker, settings.MARKERS if kind in operators else settings.MARKERS[1:])
    event_id = str(uuid.uuid4())
    with db.writer() as session:
        session.add(models.Event(id=event_id, aggregate_name=aggregate_name, kind=kind,
                                 marker=marker, cycle_id=cycle_id, snapshot_id=snapshot_id))
    return event_id


def _check_event_move(status, state):
    """Refuse an unknown status or state, and a ``completed`` status without a state."""
    common.check_choice("status", status, states.EventStatus)
    if state is not None:
        common.check_choice("state", state, states.EventState)
    if status == states.EventStatus.COMPLETED and state is None:
        raise exception.InvalidField("state", "a completed event needs a state")


_EVENT_LIFE = list(states.EventStatus)  # declared in the order an event lives them


def _move_event(db, row, status, state):
    """Move the event ``row`` to ``status`` (and ``state``) if the transition table allows it.

    A status the event has already passed is no move: a task that runs again after an
    engine restart (its earlier run's result never saved) asks for the status it set
    then, and the event keeps the one it has since reached.
    """
    if _EVENT_LIFE.index(status) < _EVENT_LIFE.index(row.status):
        return
    states.check_move("event.status", row.status, status, f"event {row.id}")
    row.status = status
    if state is not None:
        row.state = state
    if status == states.EventStatus.COMPLETED:
        row.finished_at = db.now()


def set_event_status(db, event_id, status, state=None):
    """Move an event to ``status`` (and ``state``); a ``completed`` event must have a state."""
    _check_event_move(status, state)
    with db.writer() as session:
        _move_event(db, common.row_or_404(session, models.Event, event_id, "event"), status, state)


def _no_target_key(entry):
    return entry["source_host"] or "", entry["vm_id"] or ""


def update_event_reasons(db, event_id, merge, no_target=(), status=None, state=None):
    """Rewrite an event's reasons, add its "no target" entries and move it, in one row-locked transaction.

    ``merge(stored reasons)`` returns the new (reason_code, reasons), or None to leave both
    as they are. ``no_target`` entries (``keyvrm.flows.events.no_target_entry``) are kept one
    per (source_host, vm_id), a later one replacing the earlier, ordered by source_host then
    vm_id. With ``status`` (and ``state``, which ``completed`` needs) the event moves to it.
    """
    if status is not None:
        _check_event_move(status, state)
    with db.writer() as session:
        row = common.row_or_404(session, models.Event, event_id, "event", lock=True)
        merged = merge(row.reasons)
        if merged is not None:
            row.reason_code, row.reasons = merged
        if status is not None:
            _move_event(db, row, status, state)
        if no_target:
            kept = {_no_target_key(e): e for e in row.no_target or ()}
            kept.update((_no_target_key(e), dict(e)) for e in no_target)
            row.no_target = [kept[key] for key in sorted(kept)]


def settle_event(db, event_id, decide):
    """Complete an event whose recommendations all ended, in one row-locked transaction; its final state.

    ``decide(stored reasons, statuses of its recommendations)`` returns None while one is
    still open (nothing changes), else (state, reason_code, reasons): the event is then
    completed with them. An event already completed is left as it is (its state is
    returned), so of two settles that race only the first writes.
    """
    with db.writer() as session:
        row = common.row_or_404(session, models.Event, event_id, "event", lock=True)
        if row.status == states.EventStatus.COMPLETED:
            return row.state
        statuses = list(session.execute(sa.select(models.Recommendation.status).where(
            models.Recommendation.event_id == event_id)).scalars())
        decided = decide(row.reasons, statuses)
        if decided is None:
            return None
        state, row.reason_code, row.reasons = decided
        _check_event_move(states.EventStatus.COMPLETED, state)
        _move_event(db, row, states.EventStatus.COMPLETED, state)
        return state


def event_dict(row):
    """An event's columns as lists show it: without the per-host ``no_target`` entries."""
    values = common.columns(row, models.Event)
    del values["no_target"]
    return values


EVENT_SORT_KEYS = ("created_at", "updated_at", "status", "kind")


def page_events(db, limit, marker=None, aggregate=None, kind=None, status=None, state=None,
                sort_key="created_at", sort_dir="desc", since=None):
    """One page of events, filtered, sorted by ``sort_key`` (then id) in ``sort_dir``.

    ``since``: only events created at or after it (a naive UTC datetime, as stored).
    """
    common.check_choice("sort_key", sort_key, EVENT_SORT_KEYS)
    common.check_choice("sort_dir", sort_dir, ("asc", "desc"))
    filters = []
    for field, value, choices in (("kind", kind, states.EventKind),
                                  ("status", status, states.EventStatus),
                                  ("state", state, states.EventState)):
        if value is not None:
            common.check_choice(field, value, choices)
            filters.append(getattr(models.Event, field) == value)
    if aggregate is not None:
        filters.append(models.Event.aggregate_name == aggregate)
    if since is not None:
        filters.append(models.Event.created_at >= since)
    with db.reader() as session:
        marker_row = common.marker_row(session, models.Event, marker)
        query = common.keyset(sa.select(models.Event).where(*filters), getattr(models.Event, sort_key),
                              models.Event.id, marker_row, sort_dir == "desc").limit(limit)
        return [event_dict(r) for r in session.execute(query).scalars()]


def get_event_summary(db, event_id):
    """One event with the count of its recommendations by status and its ``no_target`` entries."""
    with db.reader() as session:
        row = common.row_or_404(session, models.Event, event_id, "event")
        values = event_dict(row)
        values["no_target"] = list(row.no_target or ())
        counts = session.execute(sa.select(models.Recommendation.status, sa.func.count()).where(
            models.Recommendation.event_id == event_id).group_by(models.Recommendation.status))
        values["recommendations"] = {status: count for status, count in counts}
        return values


def list_events(db, aggregate_name=None, kind=None, cycle_id=None):
    """Events as dicts, oldest first, optionally of one aggregate, kind and/or cycle."""
    query = sa.select(models.Event).order_by(models.Event.created_at, models.Event.id)
    if aggregate_name is not None:
        query = query.where(models.Event.aggregate_name == aggregate_name)
    if kind is not None:
        query = query.where(models.Event.kind == kind)
    if cycle_id is not None:
        query = query.where(models.Event.cycle_id == cycle_id)
    with db.reader() as session:
        return [event_dict(r) for r in session.execute(query).scalars()]


def waiting_events_without_open_work(db, limit):
    """Ids of events waiting for an operator (``manual_action``) whose recommendations all ended, oldest first."""
    rec = models.Recommendation
    open_work = sa.select(rec.id).where(rec.event_id == models.Event.id,
                                        rec.status.not_in(states.RECOMMENDATION_FINAL)).exists()
    waiting = models.Event.status == states.EventStatus.MANUAL_ACTION
    query = sa.select(models.Event.id).where(waiting, ~open_work).order_by(
        models.Event.created_at, models.Event.id).limit(limit)
    with db.reader() as session:
        return list(session.execute(query).scalars())


def discard_empty_event(db, event_id):
    """Delete an event its run found nothing to record under (no recommendation, no host claimed)."""
    with db.writer() as session:
        claimed = session.execute(sa.select(sa.func.count()).where(
            models.HypervisorState.event_id == event_id)).scalar_one()
        recs = session.execute(sa.select(sa.func.count()).where(
            models.Recommendation.event_id == event_id)).scalar_one()
        if claimed or recs:
            raise exception.Conflict(f"event {event_id} has work recorded; it is not discarded")
        session.execute(sa.delete(models.Event).where(models.Event.id == event_id))
