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


def request_hypervisor_restore(db, host, requested_by, request_id=None):
    """Mark a fenced/maintenance/error host ``restoring`` for the engine to return to service; audited.

    The host's row is read under a row lock (``SELECT ... FOR UPDATE``) and changed with
    its audit row in the same transaction: of concurrent requests exactly one succeeds;
    the others, and a request for a host in any other state, get ``Conflict`` naming the
    state. ``NotFound`` if neither the newest snapshot with hosts (its ``hypervisors`` row)
    nor KeyVRM knows the host.
    """
    with db.writer() as session:
        row = session.execute(sa.select(models.HypervisorState).where(models.HypervisorState.host == host)
                              .with_for_update()).scalar_one_or_none()
        if row is None:
            if session.get(models.Hypervisor, host) is None:
                raise exception.NotFound(f"hypervisor {host} not found")
            raise exception.Conflict(f"hypervisor {host} is ok: KeyVRM has not taken it out of service",
                                     code="hypervisor_not_restorable")
        if row.state not in states.HYPERVISOR_RESTORABLE:
            raise exception.Conflict(
                f"hypervisor {host} is {row.state}: only a {', '.join(states.HYPERVISOR_RESTORABLE)} "
                "host can be returned to service", code="hypervisor_not_restorable")
        session.add(models.ConfigAudit(scope="hypervisor", target=host, field="state",
                                       old_value=row.state, new_value=states.HypervisorState.RESTORING.value,
                                       changed_by=requested_by, request_id=request_id))
        row.state, row.state_since = states.HypervisorState.RESTORING, db.now()
        row.reason = f"return to service requested by {requested_by}"
    return hypervisors.get_hypervisor(db, host)


def list_hypervisors_restoring(db):
    """Hosts an operator asked to return to service that the engine has not returned yet."""
    row = models.HypervisorState
    with db.reader() as session:
        return list(session.execute(sa.select(row.host).where(row.state == states.HypervisorState.RESTORING)
                                    .order_by(row.host)).scalars())


def complete_hypervisor_restore(db, host, message):
    """The host is back in service: state ``ok`` (HA watches it again). False if no longer restoring."""
    row = models.HypervisorState
    now = db.now()
    with db.writer() as session:
        done = session.execute(sa.update(row).where(row.host == host, row.state == states.HypervisorState.RESTORING)
                               .values(state=states.HypervisorState.OK, reason=message, event_id=None, state_since=now,
                                       updated_at=now))
        return done.rowcount == 1


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
