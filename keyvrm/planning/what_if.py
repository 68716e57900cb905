"""What HA would plan now if given hosts of an aggregate died: its round-1 plan and each host's end state.

The failed hosts stand for the condemned ones. HA fences them only as detection would
(``ha.hosts_to_fence``: not past the mass-failure guard, not without a fencer, not a host
no enabled fencer can handle); the plan is then ``ha.plan_evacuation``
itself (the ordered pass and the repair that may re-place VMs of the same plan) for the
fenced ones, on the same snapshot slice, busy set and options an HA run uses. Round 2
re-plans only evacuations Nova failed, so it cannot be predicted: every move is of round
1. A fenced host ends in maintenance when every VM on it moves, in error when any stays
(a VM without a target, one excluded by metadata, one whose local disk an evacuation
would lose, a busy one), as ``FinishHosts`` decides after the evacuation, assuming every
fence is confirmed and Nova accepts every planned move. A host HA would not fence keeps
KeyVRM's state ``ok``: nothing is evacuated. A host KeyVRM already handles (fenced,
evacuating, maintenance, error...) is not planned again, as detection would not condemn
it again; it keeps its state.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.model import states
from keyvrm.planning import ha
from keyvrm.planning import plan as plan_model
from keyvrm.planning import reasons


@dataclasses.dataclass(frozen=True)
class FailedHost:
    """One host supposed dead: its VMs in the snapshot, the state KeyVRM already holds it in, its end state."""

    host: str
    vm_ids: tuple
    handled_state: Optional[str]
    fenced: bool
    end_state: str


@dataclasses.dataclass(frozen=True)
class WhatIf:
    """The round-1 plan HA would make, and per failed host (in the order asked) its outcome.

    The plan's reasons are one ``already_handled`` per failed host KeyVRM already holds,
    then why HA would not fence some (or any) of the others, then ``plan_evacuation``'s.
    """

    plan: plan_model.Plan
    hosts: tuple


def plan_failure(snapshot, app_config, agg_config, busy: m.BusySet, failed_hosts, handled: dict, *,
                 max_condemned_share: float = ha.DEFAULT_MAX_CONDEMNED_SHARE, index=None,
                 **plan_options) -> WhatIf:
    """The plan HA would make if ``failed_hosts`` of ``agg_config``'s aggregate were condemned now.

    ``handled`` maps a host KeyVRM already holds to its state (``claimed_hypervisors``):
    such a host is left out of the plan. ``plan_options`` are ``ha.plan_evacuation``'s
    (``allow_rebuild``, ``max_rejected_hosts``, ``heartbeat_stale_after_s``...).
    """
    index = index or snapshot.index()
    condemned = [host for host in failed_hosts if host not in handled]
    to_fence, why_not = ha.hosts_to_fence(condemned, app_config, agg_config.name,
                                          len(index.hypervisors_of(agg_config.name)), max_condemned_share, index)
    planned = ha.plan_evacuation(snapshot, app_config, agg_config, busy, to_fence, index=index, **plan_options)
    found = tuple(reasons.already_handled(host, handled[host]) for host in failed_hosts if host in handled)
    planned = dataclasses.replace(planned, reasons=found + why_not + tuple(planned.reasons))
    moving = {move.vm_id for move in planned.moves}
    hosts = []
    for host in failed_hosts:
        vm_ids = tuple(sorted(vm.id for vm in index.vms_on(host)))
        if host in handled:
            end_state = handled[host]
        elif host not in to_fence:
            end_state = states.HypervisorState.OK.value
        elif all(vm_id in moving for vm_id in vm_ids):
            end_state = states.HypervisorState.MAINTENANCE.value
        else:
            end_state = states.HypervisorState.ERROR.value
        hosts.append(FailedHost(host, vm_ids, handled.get(host), host in to_fence, end_state))
    return WhatIf(planned, tuple(hosts))
