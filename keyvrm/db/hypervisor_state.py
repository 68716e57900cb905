"""KeyVRM's own state of each host: claimed by an HA run, fenced, held, returned to service.

How operators read hosts (with what Nova saw of them): ``keyvrm.db.hypervisors``.
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import hypervisors
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import states


# what a drain's reason says after who requested it when the drain may cold-migrate
COLD_ALLOWED = " (cold migration allowed)"


def set_hypervisor_state(db, host, state, reason=None, fencing=None, event_id=None):
    """Record KeyVRM's view of ``host``; ``fenced`` needs the fencing record that proves it."""
    common.check_choice("state", state, states.HypervisorState)
    if state == states.HypervisorState.FENCED and not fencing:
        raise exception.InvalidField("fencing", "a fenced host needs its fencing record")
    with db.writer() as session:
        row = session.get(models.HypervisorState, host, with_for_update=True)
        states.check_move("hypervisor.state", states.HypervisorState.OK if row is None else row.state, state,
                          f"hypervisor {host}")
        if row is None:
            row = models.HypervisorState(host=host)
            session.add(row)
        if row.state != state:
            row.state_since = db.now()
        row.state, row.reason, row.event_id = state, reason, event_id
        if fencing is not None:
            row.fencing = fencing
            if state == states.HypervisorState.FENCED:
                row.fenced_at = db.now()


def claim_hypervisor(db, host, event_id):
    """Whether the HA event ``event_id`` now owns ``host`` (state ``fencing``), atomically.

    One conditional UPDATE (or the INSERT of the host's first row, which the primary key
    makes exclusive): it succeeds when the host is in no claimed state, or is already this
    event's (a task re-run after a crash). Two HA runs that condemn the same host at once:
    exactly one fences and evacuates it.
    """
    fencing = states.HypervisorState.FENCING
    claimed = models.HypervisorState.state.in_(states.HYPERVISOR_CLAIMED)
    update = (sa.update(models.HypervisorState)
              .where(models.HypervisorState.host == host,
                     models.HypervisorState.state.in_(states.sources("hypervisor.state", fencing)),
                     sa.or_(sa.not_(claimed), models.HypervisorState.event_id == event_id))
              .values(state=fencing, reason=None, event_id=event_id, updated_at=db.now(),
                      state_since=sa.case((models.HypervisorState.state == fencing,
                                           models.HypervisorState.state_since), else_=db.now())))
    try:
        with db.writer() as session:
            if session.execute(update).rowcount == 1:
                return True
            if session.get(models.HypervisorState, host) is not None:
                return False
            session.add(models.HypervisorState(host=host, state=fencing, event_id=event_id,
                                               state_since=db.now()))
    except db_exc.DBDuplicateEntry:
        return False
    return True


def claimed_hypervisors(db, excluding_event=None) -> dict:
    """Host -> KeyVRM state of every host an HA run owns or has handled (``HYPERVISOR_CLAIMED_STATES``).

    Hosts owned by ``excluding_event`` are left out (that run's own claims, after a restart).
    """
    row = models.HypervisorState
    query = sa.select(row.host, row.state).where(row.state.in_(states.HYPERVISOR_CLAIMED))
    if excluding_event is not None:
        query = query.where(sa.or_(row.event_id.is_(None), row.event_id != excluding_event))
    with db.reader() as session:
        return dict(session.execute(query).all())


def get_hypervisor_state(db, host):
    """KeyVRM's view of ``host`` as a dict (state ``ok`` if KeyVRM never recorded one)."""
    with db.reader() as session:
        row = session.get(models.HypervisorState, host)
        if row is None:
            return dict(host=host, state=states.HypervisorState.OK.value, reason=None, fencing=None, fenced_at=None,
                        event_id=None, state_since=None)
        return dict(host=host, state=row.state, reason=row.reason, fencing=row.fencing,
                    fenced_at=row.fenced_at, event_id=row.event_id, state_since=row.state_since)


def _locked_state_row(session, host):
    """``host``'s state row under a row lock (``SELECT ... FOR UPDATE``), None if KeyVRM holds none.

    ``NotFound`` if neither KeyVRM nor the newest snapshot with hosts knows ``host``.
    """
    row = session.execute(sa.select(models.HypervisorState).where(models.HypervisorState.host == host)
                          .with_for_update()).scalar_one_or_none()
    if row is None and session.get(models.Hypervisor, host) is None:
        raise exception.NotFound(f"hypervisor {host} not found")
    return row


def request_hypervisor_restore(db, host, requested_by, request_id=None, failback=False):
    """Mark a fenced/maintenance/error host ``restoring`` for the engine to return to service; audited.

    The host's row is read under a row lock (``SELECT ... FOR UPDATE``) and changed with
    its audit row in the same transaction: of concurrent requests exactly one succeeds;
    the others, and a request for a host in any other state, get ``Conflict`` naming the
    state. ``NotFound`` if neither the newest snapshot with hosts (its ``hypervisors`` row)
    nor KeyVRM knows the host. With ``failback`` the VMs KeyVRM moved off the host are
    planned back once it is in service (``failback_pending``).
    """
    with db.writer() as session:
        row = _locked_state_row(session, host)
        if row is None:
            raise exception.Conflict(f"hypervisor {host} is ok: KeyVRM has not taken it out of service",
                                     code="hypervisor_not_restorable")
        if row.state not in states.HYPERVISOR_RESTORABLE:
            raise exception.Conflict(
                f"hypervisor {host} is {row.state}: only a {', '.join(states.HYPERVISOR_RESTORABLE)} "
                "host can be returned to service", code="hypervisor_not_restorable")
        session.add(models.ConfigAudit(scope="hypervisor", target=host, field="state",
                                       old_value=row.state, new_value=states.HypervisorState.RESTORING.value,
                                       changed_by=requested_by, request_id=request_id))
        if row.state in states.HYPERVISOR_DRAINING and row.event_id is not None:
            _cancel_unstarted(session, db, row.event_id, f"drain cancelled: {host} returned to service by "
                              f"{requested_by}")
        row.state, row.state_since = states.HypervisorState.RESTORING, db.now()
        row.failback_pending = bool(failback)
        row.reason = f"return to service requested by {requested_by}"
    return hypervisors.get_hypervisor(db, host)


def request_hypervisor_drain(db, host, reason, requested_by, request_id=None, allow_cold=False):
    """Mark an ``ok`` host ``draining`` for the engine to empty by live migrations; audited.

    As a restore request: the row is read under a row lock and changed with its audit row
    in one transaction, so of concurrent requests exactly one succeeds; a host in any
    other state gets ``Conflict`` naming the state; ``NotFound`` if neither the newest
    snapshot with hosts nor KeyVRM knows it. The operator's ``reason`` becomes the
    disabled reason of its compute service ("KeyVRM drain: ..."). ``allow_cold`` lets the
    drain cold-migrate what a live migration cannot move (``keyvrm.planning.drain``): it
    is kept on the row, said in its reason and audited.
    """
    if not (reason or "").strip():
        raise exception.InvalidField("reason", "a drain needs a reason (e.g. the maintenance ticket)")
    try:
        _drain(db, host, reason, requested_by, request_id, bool(allow_cold))
    except db_exc.DBDuplicateEntry:  # a concurrent drain wrote the host's first state row first
        raise exception.Conflict(f"hypervisor {host} is being drained by a concurrent request",
                                 code="hypervisor_not_drainable") from None
    return hypervisors.get_hypervisor(db, host)


def _drain(db, host, reason, requested_by, request_id, allow_cold):
    with db.writer() as session:
        row = _locked_state_row(session, host)
        if row is None:
            row = models.HypervisorState(host=host, state=states.HypervisorState.OK)
            session.add(row)
        elif row.state != states.HypervisorState.OK:
            raise exception.Conflict(f"hypervisor {host} is {row.state}: only an ok host can be drained",
                                     code="hypervisor_not_drainable")
        session.add(models.ConfigAudit(scope="hypervisor", target=host, field="state",
                                       old_value=states.HypervisorState.OK.value,
                                       new_value=states.HypervisorState.DRAINING.value,
                                       changed_by=requested_by, request_id=request_id))
        if allow_cold:
            session.add(models.ConfigAudit(scope="hypervisor", target=host, field="drain_allow_cold",
                                           old_value=False, new_value=True, changed_by=requested_by,
                                           request_id=request_id))
        row.state, row.state_since, row.event_id = states.HypervisorState.DRAINING, db.now(), None
        row.drain_allow_cold = allow_cold
        row.reason = "drain requested by %s%s: %s" % (requested_by, COLD_ALLOWED if allow_cold else "",
                                                      reason.strip())


def list_hypervisors_draining(db) -> list:
    """(host, state, reason, drain event id or None, allow_cold) of the hosts KeyVRM drains or drained incompletely."""
    row = models.HypervisorState
    with db.reader() as session:
        return [tuple(r) for r in session.execute(
            sa.select(row.host, row.state, row.reason, row.event_id, row.drain_allow_cold)
            .where(row.state.in_(states.HYPERVISOR_DRAINING)).order_by(row.host))]


def _cancel_unstarted(session, db, event_id, message):
    """Cancel the event's recommendations that have not started, each with its journal line, in ``session``."""
    rec = models.Recommendation
    waiting = (states.RecommendationStatus.CREATED, states.RecommendationStatus.MANUAL_ACTION)
    query = sa.select(rec).where(rec.event_id == event_id, rec.status.in_(waiting)).with_for_update()
    unstarted = session.execute(query).scalars()
    for row in unstarted:
        row.status, row.finished_at, row.reason = states.RecommendationStatus.CANCELLED, db.now(), message
        session.add(models.Operation(recommendation_id=row.id, kind="cancel", attempt=row.attempts,
                                     message=message))


def list_hypervisors_restoring(db):
    """Hosts an operator asked to return to service that the engine has not returned yet."""
    row = models.HypervisorState
    with db.reader() as session:
        return list(session.execute(sa.select(row.host).where(row.state == states.HypervisorState.RESTORING)
                                    .order_by(row.host)).scalars())


def complete_hypervisor_restore(db, host, message, failback=False):
    """The host is back in service: state ``ok`` (HA watches it again). False if no longer restoring.

    ``failback`` (the aggregate's failback is ``auto``) makes its failback pending, as a
    restore that asked for it did.
    """
    row = models.HypervisorState
    now = db.now()
    values = dict(state=states.HypervisorState.OK, reason=message, event_id=None, state_since=now, updated_at=now)
    if failback:
        values["failback_pending"] = True
    with db.writer() as session:
        done = session.execute(sa.update(row).where(row.host == host, row.state == states.HypervisorState.RESTORING)
                               .values(**values))
        return done.rowcount == 1


def list_failbacks_pending(db) -> list:
    """Hosts back in service (``ok``) whose failback is still to be planned."""
    row = models.HypervisorState
    with db.reader() as session:
        return list(session.execute(sa.select(row.host).where(
            row.state == states.HypervisorState.OK, row.failback_pending.is_(True)).order_by(row.host)).scalars())


def clear_failback(db, host) -> None:
    """The host's failback was planned: no longer pending."""
    row = models.HypervisorState
    with db.writer() as session:
        session.execute(sa.update(row).where(row.host == host).values(failback_pending=False))


def release_lost_hypervisor(db, host, event_id, reason):
    """Give a host an HA run abandoned back to HA (state ``ok``); False if that run's claim had moved on."""
    with db.writer() as session:
        result = session.execute(
            sa.update(models.HypervisorState).where(
                models.HypervisorState.host == host, models.HypervisorState.event_id == event_id,
                models.HypervisorState.state.in_(states.HYPERVISOR_IN_HA_RUN))
            .values(state=states.HypervisorState.OK, reason=reason, event_id=None, state_since=db.now(),
                    updated_at=db.now())
            .execution_options(synchronize_session=False))
        return result.rowcount == 1
