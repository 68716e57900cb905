"""Recommendations (one action on one VM): created, moved along their status, run or cancelled on request, listed."""

import uuid

import sqlalchemy as sa
from sqlalchemy import orm

from keyvrm.db import common
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import snapshot as snapshot_model
from keyvrm.model import states


def create_recommendation(db, event_id, action, vm_id, source_host, target_host, auto_run,
                          ha_round=None, load_calculation=None, reason=None):
    """Create a recommendation, ``created`` when it runs by itself, else ``manual_action``."""
    common.check_choice("action", action, states.RecommendationAction)
    if action == "evacuate" and ha_round not in (1, 2):
        raise exception.InvalidField("ha_round", "an evacuation belongs to HA round 1 or 2")
    rec_id = str(uuid.uuid4())
    with db.writer() as session:
        if session.get(models.Event, event_id) is None:
            raise exception.InvalidField("event_id", f"event {event_id} not found")
        session.add(models.Recommendation(
            id=rec_id, event_id=event_id, action=action, vm_id=vm_id, source_host=source_host,
            target_host=target_host, ha_round=ha_round,
            status=states.RecommendationStatus.CREATED if auto_run else states.RecommendationStatus.MANUAL_ACTION,
            load_calculation=load_calculation, reason=reason))
    return rec_id


def set_recommendation_status(db, rec_id, status, reason=None):
    """Move a recommendation along its life (``InvalidTransition``, a ``Conflict``, for a move the table forbids).

    The row is locked while the move is checked: an operator's cancel that committed first
    makes the executor's ``running`` a ``Conflict`` (the cancel wins), never overwritten.
    """
    common.check_choice("status", status, states.RecommendationStatus)
    with db.writer() as session:
        move_status(db, session, rec_id, status, reason)


def move_status(db, session, rec_id, status, reason=None):
    """``set_recommendation_status`` inside the caller's transaction (the row locked until it ends)."""
    row = session.get(models.Recommendation, rec_id, with_for_update=True)
    if row is None:
        raise exception.NotFound(f"recommendation {rec_id} not found")
    states.check_move("recommendation.status", row.status, status, f"recommendation {rec_id}")
    row.status = status
    if reason is not None:
        row.reason = reason
    if status == states.RecommendationStatus.RUNNING:
        row.started_at = db.now()
    if status in states.RECOMMENDATION_FINAL:
        row.finished_at = db.now()


def _recommendation_dict(row):
    return {c.name: getattr(row, c.name) for c in models.Recommendation.__table__.columns}


def get_recommendation(db, rec_id, latest_operation=False):
    """One recommendation as a dict of its columns (``NotFound`` if there is none).

    ``latest_operation``: also its newest journal line (see ``page_recommendations``).
    """
    if latest_operation:
        query = _with_latest_operation(sa.select(models.Recommendation)).where(models.Recommendation.id == rec_id)
        with db.reader() as session:
            found = session.execute(query).first()
            if found is None:
                raise exception.NotFound(f"recommendation {rec_id} not found")
            return _with_latest(*found)
    with db.reader() as session:
        row = session.get(models.Recommendation, rec_id)
        if row is None:
            raise exception.NotFound(f"recommendation {rec_id} not found")
        return _recommendation_dict(row)


def _with_latest_operation(query):
    """``query`` of recommendations that also selects each one's newest operation row (None: no journal yet).

    The newest line is the one with the highest id (the journal's order); the correlated
    subquery reads it by the operations' recommendation index, in the same statement.
    """
    rec, op = models.Recommendation, models.Operation
    newer = orm.aliased(models.Operation)
    newest_id = (sa.select(sa.func.max(newer.id)).where(newer.recommendation_id == rec.id)
                 .correlate(rec).scalar_subquery())
    return query.add_columns(op).outerjoin(op, op.id == newest_id)


def _with_latest(row, operation):
    """A recommendation's columns with ``latest_operation``: its newest journal line, or None."""
    found = _recommendation_dict(row)
    found["latest_operation"] = None if operation is None else {
        "kind": operation.kind, "attempt": operation.attempt, "message": operation.message,
        "error": operation.error, "created_at": operation.created_at}
    return found


def list_recommendations(db, event_id=None, status=None, created_before=None):
    """Recommendations as dicts, oldest first, optionally of one event, one status, created before a time."""
    query = sa.select(models.Recommendation).order_by(models.Recommendation.created_at,
                                                      models.Recommendation.id)
    if event_id is not None:
        query = query.where(models.Recommendation.event_id == event_id)
    if status is not None:
        common.check_choice("status", status, states.RecommendationStatus)
        query = query.where(models.Recommendation.status == status)
    if created_before is not None:
        query = query.where(models.Recommendation.created_at <= created_before)
    with db.reader() as session:
        return [_recommendation_dict(r) for r in session.execute(query).scalars()]


def work_touching_hosts(db, hosts, statuses, excluding_event, evacuations_of_aggregate=None) -> list:
    """Recommendations in ``statuses``, not of ``excluding_event``, that touch ``hosts``; oldest first.

    Touching: a source or target among ``hosts``; with ``evacuations_of_aggregate``, also
    that aggregate's evacuations wherever they go. One statement joined to their events.
    """
    rec = models.Recommendation
    touches = [rec.source_host.in_(hosts), rec.target_host.in_(hosts)]
    query = sa.select(rec).join(models.Event, models.Event.id == rec.event_id)
    if evacuations_of_aggregate is not None:
        touches.append(sa.and_(rec.action == "evacuate", models.Event.aggregate_name == evacuations_of_aggregate))
    query = query.where(rec.status.in_(statuses), rec.event_id != excluding_event, sa.or_(*touches)) \
        .order_by(rec.created_at, rec.id)
    with db.reader() as session:
        return [_recommendation_dict(r) for r in session.execute(query).scalars()]


def busy_set(db):
    """Hosts and VMs that an unfinished recommendation touches (SPEC section 3, step 3)."""
    query = sa.select(models.Recommendation.vm_id, models.Recommendation.source_host,
                      models.Recommendation.target_host).where(
        models.Recommendation.status.not_in(states.RECOMMENDATION_FINAL))
    hosts, vms = set(), set()
    with db.reader() as session:
        for vm_id, source, target in session.execute(query):
            vms.add(vm_id)
            hosts.add(source)
            if target:
                hosts.add(target)
    return snapshot_model.BusySet(hosts=frozenset(hosts), vms=frozenset(vms))


def page_recommendations(db, limit, marker=None, event_id=None, status=None, vm_id=None, latest_operation=False):
    """One page of recommendations, oldest first, optionally of one event, status or VM.

    ``latest_operation``: each with its newest journal line (kind, attempt, message, error,
    created_at; None before the first), read in the page's own statement, whatever the
    page's size (plus one statement for the ``marker`` row).
    """
    query = sa.select(models.Recommendation)
    if latest_operation:
        query = _with_latest_operation(query)
    if event_id is not None:
        query = query.where(models.Recommendation.event_id == event_id)
    if status is not None:
        common.check_choice("status", status, states.RecommendationStatus)
        query = query.where(models.Recommendation.status == status)
    if vm_id is not None:
        query = query.where(models.Recommendation.vm_id == vm_id)
    with db.reader() as session:
        marker_row = common.marker_row(session, models.Recommendation, marker)
        query = common.keyset(query, models.Recommendation.created_at, models.Recommendation.id,
                              marker_row, descending=False).limit(limit)
        if latest_operation:
            return [_with_latest(*found) for found in session.execute(query)]
        return [common.columns(r, models.Recommendation) for r in session.execute(query).scalars()]


def request_recommendation_run(db, rec_id, requested_by):
    """Queue a manual recommendation to run: ``manual_action`` -> ``created`` (``Conflict`` otherwise).

    ``created`` is the state the engine runs by itself, so the request survives an engine
    that is down; the RPC cast only wakes it early.
    """
    with db.writer() as session:
        row = common.row_or_404(session, models.Recommendation, rec_id, "recommendation", lock=True)
        if row.status != states.RecommendationStatus.MANUAL_ACTION:
            raise exception.Conflict(f"recommendation {rec_id} is {row.status}; only a manual_action "
                                     "recommendation can be run", code="not_manual")
        row.status = states.RecommendationStatus.CREATED
        session.add(models.Operation(recommendation_id=rec_id, kind="start", attempt=0,
                                     message=f"run requested by {requested_by}"))
        return common.columns(row, models.Recommendation)


def request_recommendation_cancel(db, rec_id, requested_by):
    """Cancel a recommendation that has not started; for a running one record the request.

    ``created``/``manual_action`` become ``cancelled`` at once. A ``running`` one keeps
    its status and gets a ``cancel`` journal line "cancel requested by ..." that the
    executor honours before its next step. A final one is a ``Conflict``.
    """
    with db.writer() as session:
        row = common.row_or_404(session, models.Recommendation, rec_id, "recommendation", lock=True)
        if row.status in states.RECOMMENDATION_FINAL:
            raise exception.Conflict(f"recommendation {rec_id} is already {row.status}",
                                     code="already_final")
        if row.status == states.RecommendationStatus.RUNNING:
            message = f"cancel requested by {requested_by}"
        else:
            row.status, row.finished_at = states.RecommendationStatus.CANCELLED, db.now()
            row.reason = message = f"cancelled by {requested_by}"
        session.add(models.Operation(recommendation_id=rec_id, kind="cancel",
                                     attempt=row.attempts, message=message))
        return common.columns(row, models.Recommendation)


def cancel_unstarted(db, rec_id, reason) -> bool:
    """Cancel a recommendation that has not started (``created``, ``manual_action``) with ``reason``; whether it was.

    One conditional UPDATE and its ``cancel`` journal line in one transaction: a
    recommendation a run started meanwhile (or that ended) is left alone.
    """
    row = models.Recommendation
    update = (sa.update(row).where(row.id == rec_id, row.status.in_((states.RecommendationStatus.CREATED,
                                                                     states.RecommendationStatus.MANUAL_ACTION)))
              .values(status=states.RecommendationStatus.CANCELLED, reason=reason, finished_at=db.now(),
                      updated_at=db.now()))
    with db.writer() as session:
        if session.execute(update).rowcount != 1:
            return False
        session.add(models.Operation(recommendation_id=rec_id, kind="cancel", attempt=0, message=reason))
    return True


def _latest_finished(db, since, status, actions, *keys):
    """{key: latest finished_at} of recommendations in ``status`` with one of ``actions``.

    The key is the VM id, or the tuple of the VM id and ``keys`` columns.
    """
    rec = models.Recommendation
    columns = (rec.vm_id,) + tuple(getattr(rec, key) for key in keys)
    query = (sa.select(*columns, sa.func.max(rec.finished_at))
             .where(rec.status == status, rec.action.in_(actions), rec.finished_at >= since)
             .group_by(*columns))
    with db.reader() as session:
        rows = session.execute(query).all()
    return {(tuple(row[:-1]) if keys else row[0]): row[-1] for row in rows}


# What moves a VM to another host: a live or cold migration, an evacuation.
MOVES = (states.RecommendationAction.LIVE_MIGRATE, states.RecommendationAction.COLD_MIGRATE,
         states.RecommendationAction.EVACUATE)


def recent_moves(db, since):
    """VMs KeyVRM moved since ``since`` (a migration or evacuation that succeeded): {vm_id: finished_at}.

    The latest move of each VM; LB's cool-down keeps them where they are.
    """
    return _latest_finished(db, since, states.RecommendationStatus.SUCCEEDED, MOVES)


def recent_moved_hosts(db, since) -> dict:
    """Hosts a migration or evacuation KeyVRM made left or reached since ``since``: {host: latest finished_at}.

    LB does not plan from metrics whose window overlaps such a move (they predate it).
    """
    rec = models.Recommendation
    found = {}
    with db.reader() as session:
        for column in (rec.source_host, rec.target_host):
            query = (sa.select(column, sa.func.max(rec.finished_at))
                     .where(rec.status == states.RecommendationStatus.SUCCEEDED, rec.action.in_(MOVES),
                            rec.finished_at >= since, column.is_not(None))
                     .group_by(column))
            for host, at in session.execute(query):
                if host not in found or at > found[host]:
                    found[host] = at
    return found


def recent_failed_migrations(db, since, action=states.RecommendationAction.LIVE_MIGRATE):
    """Migrations of ``action`` (live by default) that ended ``failed`` since ``since``: {(vm_id, target_host): at}.

    LB (and a drain) does not send a VM to a target its migration of that kind to just
    failed (within the cool-down).
    """
    return _latest_finished(db, since, states.RecommendationStatus.FAILED, (action,), "target_host")


def moved_off(db, host, event_kinds) -> dict:
    """VMs KeyVRM moved off ``host`` by events of ``event_kinds`` (drain, HA): {vm_id: host it moved to}.

    Each VM's latest succeeded migration or evacuation from ``host`` by such an event;
    a VM KeyVRM moved again since, from its new host, is not KeyVRM's to bring back.
    """
    rec, event = models.Recommendation, models.Event
    query = (sa.select(rec.vm_id, rec.target_host, rec.finished_at).join(event, event.id == rec.event_id)
             .where(rec.source_host == host, rec.status == states.RecommendationStatus.SUCCEEDED,
                    rec.action.in_(MOVES), event.kind.in_(list(event_kinds)))
             .order_by(rec.finished_at))
    moved_from_host = sa.select(rec.vm_id).where(rec.source_host == host,
                                                 rec.status == states.RecommendationStatus.SUCCEEDED)
    # each of those VMs' latest move anywhere (not the whole history's)
    later = (sa.select(rec.vm_id, sa.func.max(rec.finished_at).label("at"))
             .where(rec.status == states.RecommendationStatus.SUCCEEDED, rec.action.in_(MOVES),
                    rec.vm_id.in_(moved_from_host))
             .group_by(rec.vm_id))
    with db.reader() as session:
        latest_anywhere = {vm_id: at for vm_id, at in session.execute(later)}
        found = {}
        for vm_id, target, at in session.execute(query):
            if at is not None and latest_anywhere.get(vm_id) == at:
                found[vm_id] = target
        return found
