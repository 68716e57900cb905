"""Per-host planning state: what one candidate host offers and holds while a plan is built.

A ``HostState`` is built once per host from the snapshot and then updated by the capacity
ledger as the planner places VMs, so every filter and capacity check sees the placements
made earlier in the same plan. It is the only mutable object of the planning core and
never leaves it.
"""

from __future__ import annotations

from keyvrm.model import snapshot as m


def aggregate_metadata_of(aggregates) -> dict:
    """Merge aggregate metadata the way Nova's filters see it: key -> set of values.

    Values are split on commas and stripped, as ``aggregate_metadata_get_by_host`` does.
    """
    merged: dict = {}
    for aggregate in aggregates:
        for key, value in aggregate.metadata.items():
            values = merged.setdefault(key, set())
            for item in str(value).split(","):
                values.add(item.strip())
    return {key: frozenset(values) for key, values in merged.items()}


def capabilities_of(hypervisor: m.Hypervisor) -> dict:
    """The attributes of Nova's scheduler host state that KeyVRM knows, by Nova's names.

    ``hypervisor.capabilities`` (the OpenStack driver: ``cpu_info``) plus the hypervisors
    API's ``hypervisor_type``, ``hypervisor_version`` and ``host_ip`` where reported.
    """
    capabilities = dict(hypervisor.capabilities)
    capabilities.setdefault("hypervisor_type", hypervisor.hypervisor_type)
    capabilities.setdefault("hypervisor_version", hypervisor.hypervisor_version)
    if hypervisor.host_ip:
        capabilities.setdefault("host_ip", hypervisor.host_ip)
    return capabilities


class HostState:
    """One candidate host: capacity limits, usage, instances and server-group members."""

    __slots__ = ("name", "hypervisor", "aggregates", "aggregate_metadata", "limits",
                 "max_units", "used", "hugepages_known", "hugepages_free", "hugepages_total",
                 "instance_ids", "group_counts", "capabilities")

    def __init__(self, hypervisor: m.Hypervisor, aggregates: tuple, vms=()):
        self.name = hypervisor.name
        self.hypervisor = hypervisor
        self.aggregates = tuple(aggregates)
        self.aggregate_metadata = aggregate_metadata_of(self.aggregates)
        self.limits = {}
        self.max_units = {}
        self.used = {}
        for resource_class, inventory in hypervisor.inventories.items():
            self.limits[resource_class] = inventory.capacity
            self.max_units[resource_class] = (
                inventory.max_unit if inventory.max_unit is not None else inventory.total)
            self.used[resource_class] = float(inventory.used)
        self.hugepages_known = hypervisor.hugepages is not None  # None: no source reports them
        pools = hypervisor.hugepages or ()
        self.hugepages_free = {hp.page_size_kb: hp.free_pages for hp in pools}
        self.hugepages_total = {hp.page_size_kb: hp.total_pages for hp in pools}
        self.instance_ids = set()
        self.group_counts = {}
        for vm in vms:
            self.add_instance(vm)
        self.capabilities = capabilities_of(hypervisor)

    @property
    def num_instances(self) -> int:
        """Instances counted on this host, planned ones included."""
        return len(self.instance_ids)

    def free(self, resource_class: str) -> float:
        """Placement free amount of one resource class; 0 if the host has no inventory."""
        if resource_class not in self.limits:
            return 0.0
        return self.limits[resource_class] - self.used[resource_class]

    def aggregate_values(self, key: str) -> list:
        """Raw (unsplit) values of one metadata key over this host's aggregates."""
        return [a.metadata[key] for a in self.aggregates if key in a.metadata]

    def usage(self) -> tuple:
        """A copy of what a plan changes on this host (for ``restore_usage``)."""
        return (dict(self.used), dict(self.hugepages_free), set(self.instance_ids),
                dict(self.group_counts))

    def restore_usage(self, usage: tuple) -> None:
        """Put back the usage ``usage`` copied."""
        self.used, self.hugepages_free, self.instance_ids, self.group_counts = usage

    def add_instance(self, vm: m.VM) -> None:
        """Count ``vm`` as an instance of this host (and of its server group)."""
        self.instance_ids.add(vm.id)
        if vm.server_group_id is not None:
            self.group_counts[vm.server_group_id] = self.group_counts.get(
                vm.server_group_id, 0) + 1

    def remove_instance(self, vm: m.VM) -> None:
        """Stop counting ``vm`` as an instance of this host."""
        if vm.id not in self.instance_ids:
            return
        self.instance_ids.discard(vm.id)
        if vm.server_group_id is not None:
            self.group_counts[vm.server_group_id] -= 1

    def group_members(self, group_id: str, excluding_vm: str = None) -> int:
        """Members of a server group counted here, not counting ``excluding_vm``."""
        count = self.group_counts.get(group_id, 0)
        if excluding_vm is not None and excluding_vm in self.instance_ids:
            count -= 1
        return count


class HostStates:
    """Host name -> HostState for a set of hypervisors, each built on first use.

    ``free_of`` answers a host's free amount without building its state, so a planner
    can rank thousands of hosts and build only the few it examines.
    """

    def __init__(self, hypervisors, aggregates_of, vms_on):
        self._hypervisors = {h.name: h for h in hypervisors}
        self._aggregates_of = aggregates_of
        self._vms_on = vms_on
        self._states = {}

    def __contains__(self, name) -> bool:
        return name in self._hypervisors

    def __getitem__(self, name) -> HostState:
        state = self._states.get(name)
        if state is None:
            hypervisor = self._hypervisors[name]
            state = HostState(hypervisor, self._aggregates_of(hypervisor),
                              self._vms_on(name))
            self._states[name] = state
        return state

    def free_of(self, name, resource_class) -> float:
        """Free amount of ``resource_class`` on ``name`` (0 without inventory)."""
        state = self._states.get(name)
        if state is not None:
            return state.free(resource_class)
        inventory = self._hypervisors[name].inventories.get(resource_class)
        return 0.0 if inventory is None else inventory.free
