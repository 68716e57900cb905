"""Cycle outcomes: what each aggregate's run decided when it opened no event, and when a run last happened."""

import datetime

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import events as events_db
from keyvrm.db import models
from keyvrm.model import reason_list
from keyvrm.model import states


_OUTCOME_FIELDS = ("aggregate_name", "kind", "reason_code", "reasons", "ran_at", "next_run_at")


def cycle_outcomes(session, cycle_id):
    query = sa.select(models.CycleOutcome).where(models.CycleOutcome.cycle_id == cycle_id).order_by(
        models.CycleOutcome.aggregate_name, models.CycleOutcome.kind)
    return [{f: getattr(r, f) for f in _OUTCOME_FIELDS} for r in session.execute(query).scalars()]


def record_cycle_outcome(db, cycle_id, aggregate_name, kind, reason_code, reasons, ran_at,
                         next_run_at=None):
    """Record that the aggregate's ``kind`` run of the cycle had nothing to do, and why (once).

    ``reasons`` is the run's ``ReasonList.to_json()``, ``reason_code`` its first code.
    """
    common.check_choice("kind", kind, states.EventKind)
    with db.writer() as session:
        common.insert_once(session, models.CycleOutcome(
            cycle_id=cycle_id, aggregate_name=aggregate_name, kind=kind, reason_code=reason_code,
            reasons=reasons, ran_at=ran_at, next_run_at=next_run_at))


def list_cycle_outcomes(db, cycle_id):
    """The no-op outcomes the cycle recorded so far, by aggregate and kind."""
    with db.reader() as session:
        return cycle_outcomes(session, cycle_id)


def record_cycle_outcomes(db, cycle_id, outcomes):
    """Record many no-op outcomes of one cycle (dicts of ``CycleOutcome`` columns) in one transaction.

    An outcome the cycle already holds for the same aggregate and kind is left as it is.
    """
    for outcome in outcomes:
        common.check_choice("kind", outcome["kind"], states.OutcomeKind)
    if not outcomes:
        return
    with db.writer() as session:
        have = {(o.aggregate_name, o.kind) for o in session.execute(
            sa.select(models.CycleOutcome).where(models.CycleOutcome.cycle_id == cycle_id)).scalars()}
        new = [dict(o, cycle_id=cycle_id) for o in outcomes if (o["aggregate_name"], o["kind"]) not in have]
        if new:
            session.execute(sa.insert(models.CycleOutcome), new)


# How many of the newest finished cycles ``latest_outcome`` looks through for an aggregate
# (a periodic cycle judges every aggregate; fast-path cycles only a few).
_OUTCOME_LOOKBACK = 50


def latest_outcome(db, aggregate_name):
    """An aggregate's own latest outcome: what the newest finished cycle that judged it decided, and why.

    ``{cycle_id, cycle_status, finished_at, outcomes: [...], events: [...]}`` with the
    aggregate's no-op outcomes and the events its runs opened in that cycle; None when
    none of the newest finished cycles judged it. A cycle still running is never used.
    """
    ended = models.Cycle.status.in_((states.CycleStatus.COMPLETED, states.CycleStatus.SKIPPED))
    finished = sa.select(models.Cycle.id).where(ended).order_by(
        models.Cycle.id.desc()).limit(_OUTCOME_LOOKBACK).scalar_subquery()
    with db.reader() as session:
        by_outcome = session.execute(sa.select(sa.func.max(models.CycleOutcome.cycle_id)).where(
            models.CycleOutcome.aggregate_name == aggregate_name,
            models.CycleOutcome.cycle_id.in_(finished))).scalar()
        by_event = session.execute(sa.select(sa.func.max(models.Event.cycle_id)).where(
            models.Event.aggregate_name == aggregate_name, models.Event.cycle_id.in_(finished))).scalar()
        cycle_id = max((c for c in (by_outcome, by_event) if c is not None), default=None)
        if cycle_id is None:
            return None
        cycle = session.get(models.Cycle, cycle_id)
        outcomes = [o for o in cycle_outcomes(session, cycle_id) if o["aggregate_name"] == aggregate_name]
        events = [events_db.event_dict(row) for row in session.execute(sa.select(models.Event).where(
            models.Event.cycle_id == cycle_id, models.Event.aggregate_name == aggregate_name).order_by(
            models.Event.created_at, models.Event.id)).scalars()]
        return dict(cycle_id=cycle_id, cycle_status=cycle.status, finished_at=cycle.finished_at,
                    outcomes=outcomes, events=events)


def get_cycle_outcome(db, cycle_id, aggregate_name, kind):
    """The no-op outcome the aggregate's ``kind`` run recorded in the cycle (None: it recorded none)."""
    with db.reader() as session:
        row = session.execute(sa.select(models.CycleOutcome).where(
            models.CycleOutcome.cycle_id == cycle_id, models.CycleOutcome.aggregate_name == aggregate_name,
            models.CycleOutcome.kind == kind)).scalar_one_or_none()
        return None if row is None else {f: getattr(row, f) for f in _OUTCOME_FIELDS}


def last_run_at(db, aggregate_name, kind, skip_reason_codes=()):
    """POSIX time of the aggregate's last ``kind`` run, an event or a no-op outcome (None: never).

    An event is timed by its snapshot (the region's time when the run planned: simulated
    time in the simulator), or by its creation once the snapshot aged out; events whose
    reason code is in ``skip_reason_codes`` (runs that did not happen) do not count; an
    outcome is timed by its ``ran_at``, with the same exclusion. Each is the newest row of
    an index read from its end, so the cost does not grow with the aggregate's history.
    """
    skip = list(skip_reason_codes) or [""]
    event = sa.select(models.Event.snapshot_id, models.Event.created_at).where(
        models.Event.aggregate_name == aggregate_name, models.Event.kind == kind,
        sa.or_(models.Event.reason_code.is_(None), models.Event.reason_code.not_in(skip))).order_by(
        models.Event.created_at.desc()).limit(1)
    outcome = sa.select(models.CycleOutcome.ran_at).where(
        models.CycleOutcome.aggregate_name == aggregate_name, models.CycleOutcome.kind == kind,
        models.CycleOutcome.reason_code.not_in(skip)).order_by(models.CycleOutcome.ran_at.desc()).limit(1)
    with db.reader() as session:
        newest = session.execute(event).one_or_none()
        last = None
        if newest is not None:
            taken_at = None if newest.snapshot_id is None else session.execute(
                sa.select(models.RegionData.taken_at).where(models.RegionData.id == newest.snapshot_id)).scalar()
            last = taken_at or newest.created_at
        last_outcome = session.execute(outcome).scalar()
    times = [t for t in (last, last_outcome) if t is not None]
    if not times:
        return None
    return max(times).replace(tzinfo=datetime.timezone.utc).timestamp()


def recent_run_hosts(db, aggregate_name, kind, count, codes, skip_reason_codes=()):
    """The hosts each of the aggregate's newest ``count`` ``kind`` runs named under ``codes``, newest first.

    A run is an event or a no-op outcome, as ``last_run_at`` counts them (those whose
    reason code is in ``skip_reason_codes`` did not happen); its hosts are those of its
    reasons' entries with a code in ``codes``, the entries the list's bound left out
    included (their keys are kept). A frozenset per run, at most ``count`` runs.
    """
    if count < 1:
        return []
    skip = list(skip_reason_codes) or [""]
    events = sa.select(models.Event.created_at, models.Event.reasons).where(
        models.Event.aggregate_name == aggregate_name, models.Event.kind == kind,
        sa.or_(models.Event.reason_code.is_(None), models.Event.reason_code.not_in(skip))).order_by(
        models.Event.created_at.desc()).limit(count)
    outcomes = sa.select(models.CycleOutcome.ran_at, models.CycleOutcome.reasons).where(
        models.CycleOutcome.aggregate_name == aggregate_name, models.CycleOutcome.kind == kind,
        models.CycleOutcome.reason_code.not_in(skip)).order_by(models.CycleOutcome.ran_at.desc()).limit(count)
    with db.reader() as session:
        runs = list(session.execute(events)) + list(session.execute(outcomes))
    runs.sort(key=lambda run: run[0], reverse=True)
    wanted = frozenset(codes)
    found = []
    for _, stored in runs[:count]:
        listed = reason_list.ReasonList.from_json(stored)
        keys = [(entry.code, entry.host) for entry in listed.entries]
        keys += [(code, host) for code, host, _ in listed.omitted]
        found.append(frozenset(host for code, host in keys if code in wanted and host is not None))
    return found
