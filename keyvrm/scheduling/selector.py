"""Pick a target host for one VM: busy hosts, online state, capacity, then Nova filters.

Checks run per candidate in Nova's order (Placement capacity before the filters); the
first check a host fails is counted, so a VM without a target comes back with the
number of hosts each check rejected ("12 hosts rejected by ServerGroupAntiAffinityFilter,
3 by ram_depleted"). A host that passes although a check could not know one of its
inputs (no Nova API reports it: see each filter's docstring) is noted in
``TargetSelector.unchecked``, which a planner reports once per plan.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Callable
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity
from keyvrm.scheduling.request import PlacementRequest

BUSY_HOST = "busy"
OFFLINE = "offline"
CAPACITY_CHECK = "Placement capacity"


@dataclasses.dataclass(frozen=True, slots=True)
class UncheckedInput:
    """One input a check could not know, over a plan: the hosts it passed and the VMs."""

    check: str  # a filter's name, or CAPACITY_CHECK
    what: str  # e.g. "img_hv_type=kvm"
    why: str  # e.g. "the hypervisors API says QEMU for kvm and qemu hosts alike"
    hosts: int
    vms: int


class UncheckedInputs:
    """Collects, per (check, input, why), the hosts that passed without it and the VMs."""

    collecting = True  # whether a selector looks for unchecked inputs at all

    def __init__(self):
        self._seen = {}

    def record(self, check: str, what: str, why: str, host: str, vm_id: str) -> None:
        """Count that ``check`` let ``host`` pass ``vm_id`` without knowing ``what``."""
        hosts, vms = self._seen.setdefault((check, what, why), (set(), set()))
        hosts.add(host)
        vms.add(vm_id)

    def add(self, other: "UncheckedInputs") -> None:
        """Count what ``other`` recorded here too (a plan kept of several tried)."""
        for key, (hosts, vms) in other._seen.items():
            mine = self._seen.setdefault(key, (set(), set()))
            mine[0].update(hosts)
            mine[1].update(vms)

    def summary(self) -> tuple:
        """The recorded inputs as ``UncheckedInput``s, sorted by check and input."""
        return tuple(UncheckedInput(check, what, why, len(hosts), len(vms))
                     for (check, what, why), (hosts, vms) in sorted(self._seen.items()))


class DiscardedInputs(UncheckedInputs):
    """Unchecked inputs nobody will read (trial plans): the selector does not look for them."""

    collecting = False


def is_online(hypervisor: m.Hypervisor) -> bool:
    """The host's compute service is known and up (a target must be able to run a VM)."""
    return hypervisor.service is not None and hypervisor.service.is_up


class TargetSelector:
    """Chooses targets against one ledger, filter list, busy set and snapshot lookups."""

    def __init__(self, ledger: capacity.Ledger, filters: tuple, busy_hosts: frozenset,
                 server_groups: dict, images: dict, unfit_hosts: Optional[dict] = None):
        self.ledger = ledger
        self.filters = filters
        self.busy_hosts = busy_hosts
        # host -> why it must not receive a VM although Nova would take it (e.g. its
        # heartbeat is stale: it may be dying); the why is the check's name
        self.unfit_hosts = unfit_hosts or {}
        self.server_groups = server_groups
        self.images = images
        self.unchecked = UncheckedInputs()
        self._may_leave_unchecked = tuple(f for f in filters if f.may_leave_unchecked)

    def request_for(self, vm: m.VM) -> PlacementRequest:
        """Build the filter request of ``vm``; group hosts come from the ledger.

        A hard-affinity group's hosts are those of every member, ``vm`` included, as
        Nova's scheduler counts them (``InstanceGroup.get_hosts()``, also for an
        evacuation from a dead host): such a VM can only stay where its group is.
        """
        image = self.images.get(vm.image_id)
        group = self.server_groups.get(vm.server_group_id)
        group_hosts = frozenset()
        if group is not None and group.policy == m.AFFINITY:
            located = (self.ledger.location(member) for member in set(group.members) | {vm.id})
            group_hosts = frozenset(h for h in located if h is not None)
        return PlacementRequest(vm=vm, resources=capacity.resource_request_of(vm, image),
                                image=image, server_group=group, group_hosts=group_hosts)

    def host_rejection(self, request: PlacementRequest, host: str,
                       extra_check: Optional[Callable] = None) -> Optional[str]:
        """The name of the first check ``host`` fails for ``request``, or None.

        ``extra_check(host)`` is a planner's own condition (a check name to reject, None
        to accept); it runs after the busy, online and unfit checks, before capacity and
        filters.
        """
        if host in self.busy_hosts:
            return BUSY_HOST
        state = self.ledger.hosts[host]
        if not is_online(state.hypervisor):
            return OFFLINE
        unfit = self.unfit_hosts.get(host)
        if unfit is not None:
            return unfit
        if extra_check is not None:
            why = extra_check(host)
            if why is not None:
                return why
        code = self.ledger.rejection(request.vm, request.resources, host)
        if code is not None:
            return code
        for host_filter in self.filters:
            if not host_filter.host_passes(state, request):
                return host_filter.name
        if self.unchecked.collecting:
            self._record_unchecked(state, request)
        return None

    def _record_unchecked(self, state, request) -> None:
        """Note what the checks of a passing host could not know (see ``unchecked``)."""
        vm_id = request.vm.id
        if capacity.pages_unknown(state, request.resources) and self.ledger.location(vm_id) != state.name:
            self.unchecked.record(CAPACITY_CHECK, "hw:mem_page_size=%s" % request.resources.page_request,
                                  "no Nova or Placement API reports a host's huge pages: none counted",
                                  state.name, vm_id)
        for host_filter in self._may_leave_unchecked:
            for what, why in host_filter.unchecked(state, request):
                self.unchecked.record(host_filter.name, what, why, state.name, vm_id)

    def pick(self, request: PlacementRequest, candidates,
             extra_check: Optional[Callable] = None):
        """Return (first passing candidate or None, rejection counts per check name).

        ``candidates`` is in preference order.
        """
        rejections = collections.Counter()
        for host in candidates:
            why = self.host_rejection(request, host, extra_check)
            if why is None:
                return host, rejections
            rejections[why] += 1
        return None, rejections
