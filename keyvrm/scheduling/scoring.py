"""Host load arithmetic for LB: ``syn_score``, overload, and what moving a VM changes.

A host's load is four utilisations in % of its capacity (cpu, ram, net, hugepages); any
of them may be missing (None). ``syn_score`` is their weighted mean with the aggregate's
``lb_weights``: a missing metric is left out and the weights of the present ones are
renormalised, never read as 0; with no weighted metric present there is no score (None),
which the planner reports as ``no_metrics``.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling import hugepages

METRICS = ("cpu", "ram", "net", "hugepages")


@dataclasses.dataclass(frozen=True, slots=True)
class Load:
    """Utilisations of one host in %, None where the metric is missing."""

    cpu_pct: Optional[float] = None
    ram_pct: Optional[float] = None
    net_pct: Optional[float] = None
    hugepages_pct: Optional[float] = None

    def values(self) -> tuple:
        return (self.cpu_pct, self.ram_pct, self.net_pct, self.hugepages_pct)

    def shifted(self, delta: "Load", sign: int) -> "Load":
        """This load with ``delta`` added (sign 1) or removed (sign -1).

        A missing utilisation stays missing; a missing part of ``delta`` changes nothing;
        a result below 0 (estimates larger than the measured load) is clamped to 0.
        """
        out = []
        for have, change in zip(self.values(), delta.values()):
            if have is None:
                out.append(None)
            else:
                out.append(max(0.0, have + sign * (change or 0.0)))
        return Load(*out)


def load_of(hypervisor: m.Hypervisor) -> Load:
    """The host's measured load, all missing if the TSDB returned nothing for it."""
    metrics = hypervisor.metrics
    if metrics is None:
        return Load()
    return Load(metrics.cpu_pct, metrics.ram_pct, metrics.net_pct, metrics.hugepages_pct)


# A host's CPU measured at or above this (%) is saturated: its VMs may ask for more than it has.
SATURATED_CPU_PCT = 98.0


def demand_load(hypervisor: m.Hypervisor, vms) -> Load:
    """The host's load with a saturated CPU read as what its VMs ask for.

    A host at ``SATURATED_CPU_PCT`` or more hides demand: its VMs wait for cores, and the
    CPU they would use is the sum of their measured demand (``VMMetrics.cpu_cores``),
    which may exceed 100% of the host. When every VM of the host has a CPU measure, the
    host's CPU is the larger of what was measured and that sum; otherwise (and below
    saturation) the measured load as ``load_of``.
    """
    load = load_of(hypervisor)
    cpu_total = hypervisor.inventories[m.VCPU].total if m.VCPU in hypervisor.inventories else None
    if load.cpu_pct is None or load.cpu_pct < SATURATED_CPU_PCT or not cpu_total or not vms:
        return load
    demand = 0.0
    for vm in vms:
        if vm.metrics is None or vm.metrics.cpu_cores is None:
            return load
        demand += vm.metrics.cpu_cores
    return dataclasses.replace(load, cpu_pct=max(load.cpu_pct, 100.0 * demand / cpu_total))


def syn_score(load: Load, weights: dict) -> Optional[float]:
    """Weighted mean of the present utilisations (%), or None if none of them is weighted."""
    total = 0.0
    weight_sum = 0.0
    for key, value in zip(METRICS, load.values()):
        weight = weights.get(key, 0.0)
        if weight > 0 and value is not None:
            total += weight * value
            weight_sum += weight
    if weight_sum == 0:
        return None
    return total / weight_sum


def is_overloaded(score: Optional[float], threshold_pct: float) -> bool:
    """A host is overloaded when its score exists and is strictly above the threshold."""
    return score is not None and score > threshold_pct


def _pct(amount, capacity):
    if amount is None or not capacity:
        return None
    return 100.0 * amount / capacity


def vm_share(vm: m.VM, hypervisor: m.Hypervisor, vms_on_host: int) -> Load:
    """The part of ``hypervisor``'s load that ``vm`` accounts for, in % of that host.

    Missing VM metrics are estimated, explicitly: CPU as the flavor's vCPUs fully busy,
    RAM as the flavor's RAM, network as an even share of the host's network load; the
    HugePages share is the VM's pages over the host's pages.
    """
    metrics = vm.metrics or m.VMMetrics()
    inventories = hypervisor.inventories
    cpu_total = inventories[m.VCPU].total if m.VCPU in inventories else None
    ram_total = inventories[m.MEMORY_MB].total if m.MEMORY_MB in inventories else None
    cpu_cores = metrics.cpu_cores if metrics.cpu_cores is not None else vm.flavor.vcpus
    ram_mb = metrics.ram_mb if metrics.ram_mb is not None else vm.flavor.ram_mb
    if metrics.net_mbps is not None:
        net_pct = _pct(metrics.net_mbps, hypervisor.net_capacity_mbps)
    else:
        host_net = hypervisor.metrics.net_pct if hypervisor.metrics else None
        net_pct = host_net / vms_on_host if host_net is not None and vms_on_host else None
    hp_pct = None
    page_request = hugepages.requested_page_size(vm.flavor)
    if hugepages.wants_hugepages(page_request) and hypervisor.hugepages:
        total_kb = sum(hp.page_size_kb * hp.total_pages for hp in hypervisor.hugepages)
        hp_pct = _pct(vm.flavor.ram_mb * 1024, total_kb)
    return Load(_pct(cpu_cores, cpu_total), _pct(ram_mb, ram_total), net_pct, hp_pct)


def rescaled(share: Load, source: m.Hypervisor, target: m.Hypervisor) -> Load:
    """A VM's share of ``source`` expressed in % of ``target``'s capacity.

    A capacity unknown on either side is taken as equal on both (hosts of one aggregate
    are normally alike).
    """
    def ratio(src_cap, dst_cap):
        return src_cap / dst_cap if src_cap and dst_cap else 1.0

    def cap(h, rc):
        return h.inventories[rc].total if rc in h.inventories else None

    def hp_cap(h):
        return sum(hp.page_size_kb * hp.total_pages for hp in h.hugepages or ()) or None

    ratios = (ratio(cap(source, m.VCPU), cap(target, m.VCPU)),
              ratio(cap(source, m.MEMORY_MB), cap(target, m.MEMORY_MB)),
              ratio(source.net_capacity_mbps, target.net_capacity_mbps),
              ratio(hp_cap(source), hp_cap(target)))
    return Load(*(None if value is None else value * factor
                  for value, factor in zip(share.values(), ratios)))
