"""A region snapshot cut into per-aggregate slices, and put back together.

An aggregate's flow plans from its **slice**: a ``RegionSnapshot`` of its own that holds
what a planner of that aggregate reads and nothing else -- the region's sources, AZs and
time; every aggregate one of its hosts belongs to (Nova's aggregate filters read them
all); its hosts; their VMs; the server groups those VMs belong to with every member
(members elsewhere included, so group policies see where they run); the images those VMs
boot from; the migrations that touch its hosts or VMs. Planning an aggregate from its
slice gives the same plan as from the whole region (a property test checks it).

Stored, a snapshot is one ``RegionPart`` (what no slice holds: hosts in no aggregate and
their VMs, VMs without a host, and every aggregate, server group, image and migration)
and one ``AggregatePart`` per aggregate. A host in several aggregates is stored in each
of their slices, and its VMs too, but it is *home* only in the first (in the snapshot's
aggregate order): ``merge`` takes each host and VM from its home part, in the order the
whole snapshot had, so ``merge(split(s)) == s``.
"""

from __future__ import annotations

import array
import sys

from keyvrm.model import codec
from keyvrm.model import snapshot as m


def _part_numbers(numbers) -> bytes:
    packed = array.array("H", numbers)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def _read_part_numbers(raw: bytes) -> array.array:
    numbers = array.array("H")
    numbers.frombytes(raw)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


class Slicer:
    """Cuts one snapshot into its aggregates' slices; lookups are built once and shared."""

    def __init__(self, snapshot: m.RegionSnapshot):
        self.snapshot = snapshot
        self.index = snapshot.index()
        self.home = {}  # host name -> aggregate it is stored under (first in aggregate order)
        for agg in snapshot.aggregates:
            for host in agg.hosts:
                if host in self.index.hypervisors:
                    self.home.setdefault(host, agg.name)
        migrations_by_host, migrations_by_vm = {}, {}
        for number, migration in enumerate(snapshot.migrations):
            for host in {migration.source_host, migration.dest_host} - {None}:
                migrations_by_host.setdefault(host, []).append(number)
            migrations_by_vm.setdefault(migration.server_id, []).append(number)
        self._migrations_by_host = migrations_by_host
        self._migrations_by_vm = migrations_by_vm
        # each part's own hosts and VMs in the snapshot's order: merge() reads them back so
        self._home_hypervisors, self._home_vms = {}, {}
        for hypervisor in snapshot.hypervisors:
            if hypervisor.name in self.home:
                self._home_hypervisors.setdefault(self.home[hypervisor.name], []).append(hypervisor)
        for vm in snapshot.vms:
            if vm.host in self.home:
                self._home_vms.setdefault(self.home[vm.host], []).append(vm)

    def aggregate_names(self) -> tuple:
        """The aggregates of the snapshot, in its order."""
        return tuple(agg.name for agg in self.snapshot.aggregates)

    def slice_of(self, aggregate: str) -> m.RegionSnapshot:
        """The slice of ``aggregate`` (module docstring); empty of hosts for an unknown aggregate."""
        return self._part(aggregate)[0]

    def part_of(self, aggregate: str) -> codec.AggregatePart:
        """The stored form of ``aggregate``'s slice."""
        view, home_hypervisors, home_vms = self._part(aggregate)
        return codec.AggregatePart(aggregate, home_hypervisors, home_vms, view)

    def _part(self, aggregate):
        index, snap = self.index, self.snapshot
        agg = index.aggregates.get(aggregate)
        names = [h for h in (agg.hosts if agg is not None else ()) if h in index.hypervisors]
        away = [h for h in dict.fromkeys(names) if self.home.get(h) != aggregate]
        home = self._home_hypervisors.get(aggregate, [])
        hypervisors = tuple(home + [index.hypervisors[h] for h in away])
        home_vms = self._home_vms.get(aggregate, [])
        vms = home_vms + [vm for h in away for vm in index.vms_on(h)]
        vm_ids = {vm.id for vm in vms}
        group_ids = {vm.server_group_id for vm in vms if vm.server_group_id}
        groups = tuple(g for g in (index.server_groups.get(i) for i in sorted(group_ids)) if g is not None)
        for group in groups:
            for member in group.members:
                vm = index.vms.get(member)
                if vm is not None and member not in vm_ids:
                    vm_ids.add(member)
                    vms.append(vm)
        image_ids = sorted({vm.image_id for vm in vms if vm.image_id})
        images = tuple(index.images[i] for i in image_ids if i in index.images)
        migration_numbers = set()
        for host in names:
            migration_numbers.update(self._migrations_by_host.get(host, ()))
        for vm_id in vm_ids:
            migration_numbers.update(self._migrations_by_vm.get(vm_id, ()))
        aggregate_names = {aggregate} | {a for h in hypervisors for a in h.aggregates}
        view = m.RegionSnapshot(
            region=snap.region, taken_at=snap.taken_at, availability_zones=snap.availability_zones,
            aggregates=tuple(a for a in snap.aggregates if a.name in aggregate_names),
            hypervisors=hypervisors, vms=tuple(vms), server_groups=groups, images=images,
            migrations=tuple(snap.migrations[n] for n in sorted(migration_numbers)),
            sources=snap.sources, metrics_window_s=snap.metrics_window_s)
        return view, len(home), len(home_vms)

    def region_part(self) -> codec.RegionPart:
        """What no slice holds, and the order in which the parts interleave (module docstring)."""
        snap, home = self.snapshot, self.home
        number = {name: i + 1 for i, name in enumerate(self.aggregate_names())}
        hypervisor_parts = [number[home[h.name]] if h.name in home else 0 for h in snap.hypervisors]
        vm_parts = [number[home[vm.host]] if vm.host in home else 0 for vm in snap.vms]
        rest = m.replace(
            snap, hypervisors=tuple(h for h, p in zip(snap.hypervisors, hypervisor_parts) if not p),
            vms=tuple(vm for vm, p in zip(snap.vms, vm_parts) if not p))
        return codec.RegionPart(rest, self.aggregate_names(), _part_numbers(hypervisor_parts),
                                _part_numbers(vm_parts))


def merge(region: codec.RegionPart, parts: dict) -> m.RegionSnapshot:
    """The whole snapshot from its region part and ``parts`` (aggregate name -> ``AggregatePart``)."""
    sources = [(iter(region.snapshot.hypervisors), iter(region.snapshot.vms))]
    for name in region.parts:
        part = parts[name]
        sources.append((iter(part.snapshot.hypervisors[:part.home_hypervisors]),
                        iter(part.snapshot.vms[:part.home_vms])))
    hypervisor_iters = [hyps for hyps, _ in sources]
    vm_iters = [vms for _, vms in sources]
    hypervisors = tuple(next(hypervisor_iters[p]) for p in _read_part_numbers(region.hypervisor_parts))
    vms = tuple(next(vm_iters[p]) for p in _read_part_numbers(region.vm_parts))
    return m.replace(region.snapshot, hypervisors=hypervisors, vms=vms)
