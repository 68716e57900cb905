"""VMs KeyVRM acts on: their lock, transitional state, desired and observed status, and history."""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm.db import recommendations
from keyvrm import exception
from keyvrm.model import states


# The lock was held at the UPDATE and released before the holder was read (PostgreSQL reads
# each statement afresh): it is free, so the UPDATE is tried again, at most this many times.
LOCK_ATTEMPTS = 3


def _take_lock(db, vm_id, owner, then=None, **values):
    """The single conditional UPDATE behind every VM lock; ``values`` are set by it too.

    A refusal names the holder; a lock released between the UPDATE and that read is tried again.

    ``then(session)`` runs in the lock's transaction once the lock is taken: if it raises,
    the lock is not taken either.
    """
    if not owner:
        raise exception.InvalidField("owner", "a lock needs an owner")
    try:
        with db.writer() as session:
            session.add(models.VMState(vm_id=vm_id, locked=False))
    except db_exc.DBDuplicateEntry:
        pass
    holder = None
    for _ in range(LOCK_ATTEMPTS):
        with db.writer() as session:
            result = session.execute(
                sa.update(models.VMState)
                .where(models.VMState.vm_id == vm_id, models.VMState.locked.is_(False))
                .values(locked=True, lock_owner=owner, locked_at=db.now(), **values)
                .execution_options(synchronize_session=False))
            if result.rowcount == 1:
                if then is not None:
                    then(session)
                return
            holder = session.execute(sa.select(models.VMState.lock_owner).where(
                models.VMState.vm_id == vm_id)).scalar_one_or_none()
        if holder is not None:
            break  # held: by whom is in the refusal
    raise exception.VMLocked(vm_id, holder)


def get_vm_state(db, vm_id):
    """The VM's desired/observed status and lock, as a dict (``NotFound`` if never seen)."""
    with db.reader() as session:
        row = session.get(models.VMState, vm_id)
        if row is None:
            raise exception.NotFound(f"VM {vm_id} is not known to KeyVRM")
        return common.columns(row, models.VMState)


def page_vm_states(db, limit, marker=None, locked=None, state=None, descending=False):
    """One page of the VMs KeyVRM holds a state for, by VM id after ``marker`` (an id; it need not exist).

    ``locked``: only locked (True) or unlocked (False) VMs; ``state``: only VMs in that
    transitional state (``migrating``) or left in that failure state (``migration_failed``);
    ``descending``: ids from the highest down (the page before ``marker``).
    """
    vm = models.VMState
    query = sa.select(vm).order_by(vm.vm_id.desc() if descending else vm.vm_id.asc()).limit(limit)
    if marker is not None:
        query = query.where(vm.vm_id < marker if descending else vm.vm_id > marker)
    if locked is not None:
        query = query.where(vm.locked.is_(bool(locked)))
    if state is not None:
        query = query.where(sa.or_(vm.transitional_state == state, vm.failure_state == state))
    with db.reader() as session:
        return [common.columns(row, vm) for row in session.execute(query).scalars()]


def add_vm_history(db, vm_id, action, status, started_at, finished_at=None, message=None,
                   recommendation_id=None):
    """Append one action with its outcome to a VM's history; the duration is computed.

    A VM KeyVRM had not recorded yet (e.g. one left on a dead host that was never moved)
    gets its ``vm_state`` row, so ``GET /v1/vms/{id}`` and its history show it.
    """
    duration = (finished_at - started_at).total_seconds() if finished_at else None
    if duration is not None and duration < 0:
        raise exception.InvalidField("finished_at", "an action cannot finish before it starts")
    with db.writer() as session:
        if session.get(models.VMState, vm_id) is None:
            common.insert_once(session, models.VMState(vm_id=vm_id, locked=False))
        session.add(models.VMHistory(vm_id=vm_id, action=action, status=status,
                                     message=message, recommendation_id=recommendation_id,
                                     started_at=started_at, finished_at=finished_at,
                                     duration_s=duration))


def list_vm_history(db, vm_id):
    """A VM's history, oldest first."""
    query = sa.select(models.VMHistory).where(models.VMHistory.vm_id == vm_id).order_by(
        models.VMHistory.id)
    with db.reader() as session:
        return [dict(action=r.action, status=r.status, message=r.message,
                     started_at=r.started_at, finished_at=r.finished_at, duration_s=r.duration_s)
                for r in session.execute(query).scalars()]


def begin_vm_transition(db, vm_id, owner, transitional_state, deadline_at, desired_host=None,
                        desired_status=None, running_recommendation=None):
    """Lock the VM for ``owner`` and record what KeyVRM now wants of it, in one transaction.

    The lock is a single conditional UPDATE (``_take_lock``); the desired status,
    transitional state and deadline are written by that very statement, so a VM is never
    seen locked without its deadline. With ``running_recommendation`` that recommendation
    becomes ``running`` in the same transaction (its ``Conflict`` leaves the VM unlocked):
    an engine killed in between can leave neither a locked VM whose recommendation never
    ran nor a running recommendation without its lock.
    """
    def mark_running(session):
        recommendations.move_status(db, session, running_recommendation, states.RecommendationStatus.RUNNING)

    then = mark_running if running_recommendation is not None else None
    _take_lock(db, vm_id, owner, then=then, transitional_state=transitional_state, deadline_at=deadline_at,
               failure_state=None, desired_host=desired_host, desired_status=desired_status)


def end_vm_transition(db, vm_id, owner=None, failure_state=None, observed_host=None,
                      observed_status=None, observed_at=None):
    """Leave the transitional state and unlock; ``failure_state`` records a failure.

    ``owner`` None ends it whoever holds it (timeout expiry, admin). Returns True if the
    VM was in a transition that this call ended.
    """
    with db.writer() as session:
        query = sa.update(models.VMState).where(models.VMState.vm_id == vm_id,
                                                models.VMState.locked.is_(True))
        if owner is not None:
            query = query.where(models.VMState.lock_owner == owner)
        values = dict(locked=False, lock_owner=None, locked_at=None, transitional_state=None,
                      deadline_at=None, failure_state=failure_state)
        if observed_at is not None:
            values.update(observed_host=observed_host, observed_status=observed_status,
                          observed_at=observed_at)
        result = session.execute(query.values(**values)
                                 .execution_options(synchronize_session=False))
        return result.rowcount == 1


def record_vm_observation(db, vm_id, host, status, observed_at):
    """Store what Nova reports of a VM; a failure it contradicts is corrected (late answer).

    Returns the failure state that was cleared, if any. Older observations than the
    stored one are ignored.
    """
    with db.writer() as session:
        row = session.get(models.VMState, vm_id)
        if row is None:
            row = models.VMState(vm_id=vm_id, locked=False)
            session.add(row)
        if row.observed_at is not None and observed_at < row.observed_at:
            return None
        row.observed_host, row.observed_status, row.observed_at = host, status, observed_at
        cleared = None
        if (row.failure_state and row.desired_host in (None, host)
                and row.desired_status in (None, status)):
            cleared, row.failure_state = row.failure_state, None
        return cleared


def force_unlock_vm(db, vm_id, unlocked_by):
    """Admin unlock: end any transition, release the lock and write it to the VM's history.

    Returns True if the VM was locked. ``NotFound`` if KeyVRM never saw the VM.
    """
    now = db.now()
    with db.writer() as session:
        row = session.get(models.VMState, vm_id, with_for_update=True)
        if row is None:
            raise exception.NotFound(f"VM {vm_id} is not known to KeyVRM")
        was_locked = bool(row.locked)
        session.add(models.VMHistory(
            vm_id=vm_id, action="manual_unlock", status="succeeded" if was_locked else "noop",
            message=f"unlocked by {unlocked_by}" + ("" if was_locked else " (was not locked)"),
            started_at=now, finished_at=now, duration_s=0.0))
        row.locked, row.lock_owner, row.locked_at = False, None, None
        row.transitional_state, row.deadline_at = None, None
        return was_locked


def list_locked_vms(db, before):
    """VMs locked before ``before`` as (vm_id, lock_owner), by VM id."""
    with db.reader() as session:
        return [tuple(row) for row in session.execute(
            sa.select(models.VMState.vm_id, models.VMState.lock_owner)
            .where(models.VMState.locked.is_(True), models.VMState.locked_at < before)
            .order_by(models.VMState.vm_id))]
