"""Placement capacity and the accounting ledger a planner updates as it places VMs.

Capacity follows Placement: a resource class offers ``(total - reserved) *
allocation_ratio - used``, and no single allocation may exceed ``max_unit``. HugePages
are counted in pages of the size that serves the VM. The ledger knows where each VM is
counted (its snapshot host, or the target a plan gave it) so that moving a VM adds it to
the target once: re-planning a VM already counted on a target does not count it twice.

Every refusal carries a distinct, machine-readable code (the ``*_DEPLETED``,
``QUOTA_EXCEEDED``, ``NO_ONLINE_HYPERVISOR`` and ``VM_NOT_ON_EXPECTED_HOST`` constants).
A host whose huge pages no source reports (``Hypervisor.hugepages`` None: no Nova or
Placement API does) is not refused for pages and none are counted on it
(``pages_unknown``: the selector reports it as an unchecked input).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling import hugepages

CPU_DEPLETED = "cpu_depleted"
RAM_DEPLETED = "ram_depleted"
HUGEPAGES_DEPLETED = "hugepages_depleted"
NO_INVENTORY = "no_inventory"
QUOTA_EXCEEDED = "quota_exceeded"
NO_ONLINE_HYPERVISOR = "no_online_hypervisor"
VM_NOT_ON_EXPECTED_HOST = "vm_not_on_expected_host"

CAPACITY_CODES = (CPU_DEPLETED, RAM_DEPLETED, HUGEPAGES_DEPLETED, NO_INVENTORY)


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceRequest:
    """What one VM allocates: VCPU, MEMORY_MB and, for huge-page VMs, a page request."""

    vcpus: int
    ram_mb: int
    page_request: object = None  # see hugepages.requested_page_size
    # whether ``page_request`` asks for huge pages (read per candidate host: computed once)
    wants_hugepages: bool = dataclasses.field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "wants_hugepages", hugepages.wants_hugepages(self.page_request))


def resource_request_of(vm: m.VM, image: Optional[m.Image] = None) -> ResourceRequest:
    """Return what ``vm`` allocates on the host it runs on (from its flavor and image)."""
    return ResourceRequest(vcpus=vm.flavor.vcpus, ram_mb=vm.flavor.ram_mb,
                           page_request=hugepages.requested_page_size(vm.flavor, image))


def capacity_rejection(host_state, request: ResourceRequest) -> Optional[str]:
    """Return why ``host_state`` cannot hold ``request`` (a capacity code), or None if it can."""
    for resource_class, amount, code in ((m.VCPU, request.vcpus, CPU_DEPLETED),
                                         (m.MEMORY_MB, request.ram_mb, RAM_DEPLETED)):
        if amount <= 0:
            continue
        limit = host_state.limits.get(resource_class)
        if limit is None:
            return NO_INVENTORY
        if amount > host_state.max_units[resource_class]:
            return code
        if host_state.used[resource_class] + amount > limit:
            return code
    if request.wants_hugepages and host_state.hugepages_known and hugepages.serving_page_size(
            request.page_request, host_state.hugepages_free, request.ram_mb) is None:
        return HUGEPAGES_DEPLETED
    return None


def pages_unknown(host_state, request: ResourceRequest) -> bool:
    """``request`` wants huge pages and no source reports ``host_state``'s (not counted)."""
    return request.wants_hugepages and not host_state.hugepages_known


class Trial:
    """A block of moves on a ledger, undone when the block ends unless kept (``Ledger.trial``)."""

    __slots__ = ("kept", "_ledger", "_saved", "_outer", "_moved", "_pages", "_headroom", "_generation")

    def __init__(self, ledger):
        self.kept = False
        self._ledger = ledger

    def keep(self) -> None:
        """Keep the moves made in the block when it ends, instead of undoing them."""
        self.kept = True

    def __enter__(self):
        ledger = self._ledger
        self._moved, self._pages = dict(ledger._moved), dict(ledger._page_sizes)
        self._headroom = {p: dict(h) for p, h in ledger._headroom.items()}
        self._outer, self._generation = ledger._saved, ledger.generation
        self._saved = ledger._saved = {}  # host name -> (state, its usage before the trial)
        return self

    def __exit__(self, *exc_info):
        ledger, outer = self._ledger, self._outer
        ledger._saved = outer
        if self.kept:
            for name, entry in self._saved.items() if outer is not None else ():
                outer.setdefault(name, entry)  # untouched by the outer trial until this one
        else:
            for state, usage in self._saved.values():
                state.restore_usage(usage)
            ledger._moved, ledger._page_sizes, ledger._headroom = self._moved, self._pages, self._headroom
            ledger.generation = self._generation
        return False


class Ledger:
    """Mutable accounting of a plan in progress: host usage and where each VM is counted.

    ``host_states`` maps host name to ``HostState`` (their Placement usage already counts
    the snapshot's VMs); it may build states lazily. ``vms_by_id`` (id -> VM) says where
    the snapshot counts each VM; the ledger records only the moves made since.
    ``project_headroom`` optionally maps project id to the VCPU and MEMORY_MB its quota
    still allows; it is charged only when a VM that is counted nowhere is placed, since
    moving a counted VM does not change a project's usage.
    """

    def __init__(self, host_states, vms_by_id: dict, project_headroom: Optional[dict] = None):
        self.hosts = host_states
        self._vms = vms_by_id
        self._moved = {}
        self._page_sizes = {}
        self._headroom = {p: dict(h) for p, h in (project_headroom or {}).items()}
        self._saved = None  # inside ``trial``: host name -> (state, its usage before the trial)
        # names the counted state: a new number at every move, the one before back when a trial ends
        self.generation = 0
        self._generations = itertools.count(1)

    def trial(self) -> Trial:
        """Undo, when the block ends, every move made inside it (plans of what-ifs on shared host states).

        ``with ledger.trial() as trial:`` -- each host state a move touches is saved
        before its first change and restored at the end, with the ledger's own records,
        so one ledger serves many trial plans. Trials nest: an inner one restores what it
        changed, the outer one the rest. The block may instead keep its moves: it calls
        ``trial.keep()`` (an outer trial then undoes them with its own).
        """
        return Trial(self)

    def _save(self, state) -> None:
        if self._saved is not None and state.name not in self._saved:
            self._saved[state.name] = (state, state.usage())

    def location(self, vm_id: str) -> Optional[str]:
        """Host on which the ledger counts ``vm_id`` now (None: counted nowhere)."""
        if vm_id in self._moved:
            return self._moved[vm_id]
        vm = self._vms.get(vm_id)
        return vm.host if vm is not None else None

    def quota_rejection(self, vm: m.VM, request: ResourceRequest) -> Optional[str]:
        """QUOTA_EXCEEDED when placing a VM counted nowhere would exceed its project's quota."""
        if self.location(vm.id) is not None:
            return None
        headroom = self._headroom.get(vm.project_id)
        if headroom is None:
            return None
        if (request.vcpus > headroom.get(m.VCPU, float("inf"))
                or request.ram_mb > headroom.get(m.MEMORY_MB, float("inf"))):
            return QUOTA_EXCEEDED
        return None

    def rejection(self, vm: m.VM, request: ResourceRequest, host: str) -> Optional[str]:
        """Why ``vm`` cannot be counted on ``host`` (a capacity or quota code), or None."""
        if self.location(vm.id) == host:
            return None
        return capacity_rejection(self.hosts[host], request) or self.quota_rejection(
            vm, request)

    def move(self, vm: m.VM, request: ResourceRequest, target: str, release: bool = True) -> None:
        """Count ``vm`` on ``target`` and no longer where it was counted before.

        A VM already counted on ``target`` is left as it is (never counted twice).
        ``release=False`` leaves the host it leaves as it was: for a failed host, whose
        state no plan reads (an evacuation never targets it), that saves building it.
        """
        source = self.location(vm.id)
        if source == target:
            return
        if source is None:
            headroom = self._headroom.get(vm.project_id)
            if headroom is not None:
                headroom[m.VCPU] = headroom.get(m.VCPU, float("inf")) - request.vcpus
                headroom[m.MEMORY_MB] = headroom.get(m.MEMORY_MB, float("inf")) - request.ram_mb
        elif release and source in self.hosts:
            self._release(vm, request, self.hosts[source])
        state = self.hosts[target]
        self._save(state)
        state.used[m.VCPU] = state.used.get(m.VCPU, 0.0) + request.vcpus
        state.used[m.MEMORY_MB] = state.used.get(m.MEMORY_MB, 0.0) + request.ram_mb
        if request.wants_hugepages:
            size_kb = hugepages.serving_page_size(
                request.page_request, state.hugepages_free, request.ram_mb)
            if size_kb is not None:
                state.hugepages_free[size_kb] -= hugepages.pages_needed(request.ram_mb, size_kb)
                self._page_sizes[vm.id] = size_kb
        state.add_instance(vm)
        self._moved[vm.id] = target
        self.generation = next(self._generations)

    def _release(self, vm: m.VM, request: ResourceRequest, state) -> None:
        self._save(state)
        state.used[m.VCPU] = state.used.get(m.VCPU, 0.0) - request.vcpus
        state.used[m.MEMORY_MB] = state.used.get(m.MEMORY_MB, 0.0) - request.ram_mb
        size_kb = self._page_sizes.pop(vm.id, None)
        if size_kb is None and request.wants_hugepages:
            size_kb = hugepages.serving_page_size(
                request.page_request, {k: 0 for k in state.hugepages_total}, 0)
        if size_kb is not None and size_kb in state.hugepages_free:
            state.hugepages_free[size_kb] += hugepages.pages_needed(request.ram_mb, size_kb)
        state.remove_instance(vm)
