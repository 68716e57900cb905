"""The VM lifecycle as the executor drives it: begin, deliver, finish.

Rules (from the VM lifecycle seed): an action locks the VM atomically and sets its
transitional state with a deadline from the ``[lifecycle]`` timeouts (shown with the
VM's state); the result handler unlocks it; a command that could not even be delivered
unlocks it at once; an answer that comes after the transition was ended elsewhere (the
sweep, an admin unlock) is still stored, so the VM's state is what Nova reports. Time is
passed in (``now``), never read here.
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
          recommendation_id=None, starts_recommendation=False):
    """Lock the VM for ``action`` (``VMLocked`` if another action holds it) and start its clock.

    ``starts_recommendation``: the recommendation becomes ``running`` in the lock's own
    transaction (a ``Conflict`` if it may not, and then the VM stays unlocked).
    """
    state = states.transitional_state(action)
    deadline = now + datetime.timedelta(seconds=timeouts_s[state])
    db_api.begin_vm_transition(db, vm_id, owner, state, deadline, desired_host=desired_host,
                               desired_status=desired_status,
                               running_recommendation=recommendation_id if starts_recommendation else None)
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

    Returns False when the transition had already ended (an admin unlock or the sweep
    ended it first): the observation is still stored, so a late success corrects the
    failure state.
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
