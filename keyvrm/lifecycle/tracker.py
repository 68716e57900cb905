"""The VM lifecycle as the executor drives it: begin, deliver, finish, expire, correct.

Rules (from the VM lifecycle seed): an action locks the VM atomically and sets its
transitional state with a deadline from the ``[lifecycle]`` timeouts; the result
handler unlocks it; a command that could not even be delivered unlocks it at once; a
transition that outlives its deadline moves the VM to the matching failure state,
unlocks it and writes the reason to the log and the VM's history; a late answer from
Nova corrects the state to what is real. Time is passed in (``now``), never read here.
"""

import dataclasses
import datetime
from typing import Optional

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.lifecycle import states

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Transition:
    """One action KeyVRM started on one VM, as the executor holds it."""

    vm_id: str
    action: str
    owner: str
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    recommendation_id: Optional[str] = None


def timeouts_from_conf(conf):
    """Seconds per transitional state, from the ``[lifecycle]`` options."""
    return {state: getattr(conf.lifecycle, "%s_timeout" % state) for state in states.FAILURE_STATE_OF}


def begin(db, vm_id, action, owner, now, timeouts_s, desired_host=None, desired_status=None,
          recommendation_id=None):
    """Lock the VM for ``action`` (``VMLocked`` if another action holds it) and start its clock."""
    state = states.transitional_state(action)
    deadline = now + datetime.timedelta(seconds=timeouts_s[state])
    db_api.begin_vm_transition(db, vm_id, owner, state, deadline, desired_host=desired_host,
                               desired_status=desired_status)
    return Transition(vm_id, action, owner, now, deadline, recommendation_id)


def not_delivered(db, transition, now, error):
    """The command never reached Nova (API/messaging failure): unlock at once, record why."""
    db_api.end_vm_transition(db, transition.vm_id, owner=transition.owner)
    db_api.add_vm_history(db, transition.vm_id, transition.action, "not_delivered",
                          transition.started_at, now, message=str(error),
                          recommendation_id=transition.recommendation_id)
    LOG.warning("%s of VM %s not delivered, lock released: %s", transition.action,
                transition.vm_id, error)


def finish(db, transition, now, succeeded, observed_host, observed_status, message=None):
    """The result handler: record what Nova reports, unlock, write the history line.

    Returns False when the transition had already ended (it expired first): the
    observation is still stored, so a late success corrects the failure state.
    """
    failure = None if succeeded else states.FAILURE_STATE_OF[states.transitional_state(
        transition.action)]
    ended = db_api.end_vm_transition(db, transition.vm_id, owner=transition.owner,
                                     failure_state=failure, observed_host=observed_host,
                                     observed_status=observed_status, observed_at=now)
    if not ended:
        db_api.record_vm_observation(db, transition.vm_id, observed_host, observed_status, now)
    db_api.add_vm_history(db, transition.vm_id, transition.action,
                          "succeeded" if succeeded else "failed", transition.started_at, now,
                          message=message, recommendation_id=transition.recommendation_id)
    return ended


def expire_overdue(db, now):
    """Move every VM whose transition outlived its deadline to its failure state and unlock it.

    Returns the (vm_id, failure_state) pairs it expired.
    """
    expired = []
    for vm_id, state, owner, locked_at in db_api.list_overdue_transitions(db, now):
        failure = states.FAILURE_STATE_OF[state]
        if not db_api.end_vm_transition(db, vm_id, owner=owner, failure_state=failure):
            continue  # its result handler won the race
        reason = "%s timed out (held by %s); VM moved to %s and unlocked" % (state, owner, failure)
        LOG.error("VM %s: %s", vm_id, reason)
        db_api.add_vm_history(db, vm_id, state, failure, min(locked_at, now), now, message=reason)
        expired.append((vm_id, failure))
    return expired


def observe(db, vm_id, host, status, now):
    """Store what Nova reports of a VM; returns the failure state a late answer cleared, if any."""
    cleared = db_api.record_vm_observation(db, vm_id, host, status, now)
    if cleared:
        LOG.info("VM %s: late answer from Nova (%s on %s) clears %s", vm_id, status, host,
                 cleared)
        db_api.add_vm_history(db, vm_id, "correct", "corrected", now, now,
                              message="Nova reports %s on %s; %s cleared" % (status, host, cleared))
    return cleared


def force_unlock(db, vm_id, now, by):
    """Manual unlock for cases nothing else resolves; the API allows it to admins only."""
    released = db_api.end_vm_transition(db, vm_id, owner=None)
    if released:
        db_api.add_vm_history(db, vm_id, "unlock", "unlocked", now, now,
                              message="manual unlock by %s" % by)
    return released
