"""Seeded synthetic regions for property tests and the planning benchmark.

``generate_region(RegionShape(...), seed)`` builds a RegionSnapshot: hosts grouped in
aggregates (some of them HugePages aggregates whose VMs all use 2 MiB pages), 5-40 VMs
per host from a flavor mix, RAM filled to 50-95%, anti-affinity groups spread over
distinct hosts, and a share of hotspot hosts whose load is above the LB threshold. Host
load equals the sum of its VMs' measured load, so LB arithmetic is consistent.

``cpu_hot_shape`` and ``ram_hot_shape`` are the regions of issue 16: 20 VMs per host, 70%
of RAM allocated, resident RAM ~45% of the host, and 10% of the hosts hot in one resource
only (CPU at 85-100%, or resident RAM at 93-99%); VMs differ in how busy they are, so a
planner can pick the ones that carry the hot resource.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import random
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling import scoring

FLAVORS = tuple(sorted((
    m.Flavor("m1.tiny", 1, 2048), m.Flavor("m1.small", 2, 4096),
    m.Flavor("m1.medium", 4, 8192), m.Flavor("r1.medium", 2, 16384),
    m.Flavor("m1.large", 8, 16384), m.Flavor("r1.large", 4, 32768),
    m.Flavor("m1.xlarge", 16, 32768), m.Flavor("r1.xlarge", 8, 65536),
), key=lambda f: (f.ram_mb, f.vcpus)))
HUGE_SPECS = {"hw:mem_page_size": "2MB"}
PAGE_KB = 2048
HOST_SHAPES = ((48, 262144), (64, 393216), (96, 524288))


@dataclasses.dataclass(frozen=True)
class RegionShape:
    """Knobs of a generated region."""

    hosts: int
    aggregate_size: int = 200
    vms_per_host: tuple = (5, 40)
    fill: tuple = (0.50, 0.95)
    hotspot_share: tuple = (0.01, 0.20)
    hugepage_aggregate_share: float = 0.1
    anti_affinity_share: float = 0.05
    no_evac_share: float = 0.03
    no_migr_share: float = 0.03
    local_disk_share: float = 0.1
    cpu_ratio: float = 4.0
    reserved_ram_mb: int = 4096
    # None: the hot hosts are hot in CPU and network and fuller in RAM (the original mix);
    # "cpu" or "ram": hot in that resource only (see cpu_hot_shape, ram_hot_shape)
    hot_resource: Optional[str] = None
    ram_resident: tuple = (1.0, 1.0)  # measured RAM of a VM / its flavor RAM
    vm_cpu_spread: float = 0.0  # 0: a VM's CPU is its vCPU share; 1: busy/idle VMs vary widely
    # the most a CPU-hot host's VMs ask for, in % of its cores; above 100 the host reads 100
    # (saturated) while its VMs' measured demand says how much more they want
    cpu_demand_max_pct: float = 100.0


def cpu_hot_shape(hosts: int, aggregate_size: int = 200) -> RegionShape:
    """Issue 16's CPU-hot region: 10% of hosts at 85-100% CPU, RAM resident ~45%."""
    return RegionShape(hosts=hosts, aggregate_size=aggregate_size, vms_per_host=(20, 20),
                       fill=(0.70, 0.70), hotspot_share=(0.10, 0.10),
                       hugepage_aggregate_share=0.0, hot_resource="cpu",
                       ram_resident=(0.55, 0.75), vm_cpu_spread=1.0)


def ram_hot_shape(hosts: int, aggregate_size: int = 200) -> RegionShape:
    """Its RAM twin: 10% of hosts with resident RAM at 93-99% (allocated ~100%), CPU 10-60%."""
    return RegionShape(hosts=hosts, aggregate_size=aggregate_size, vms_per_host=(20, 20),
                       fill=(0.70, 0.70), hotspot_share=(0.10, 0.10),
                       hugepage_aggregate_share=0.0, hot_resource="ram",
                       ram_resident=(0.55, 0.75), vm_cpu_spread=1.0)


def _pick_flavor(rng, wanted_ram_mb, huge):
    rams = [f.ram_mb for f in FLAVORS]
    i = min(len(FLAVORS) - 1, bisect.bisect_left(rams, wanted_ram_mb))
    i = max(0, min(len(FLAVORS) - 1, i + rng.choice((-1, 0, 0, 1))))
    flavor = FLAVORS[i]
    if huge:
        return m.Flavor(flavor.name + ".huge", flavor.vcpus, flavor.ram_mb,
                        extra_specs=HUGE_SPECS)
    return flavor


def _host_vms(rng, shape, vcpus, ram_mb, huge, hot, counter):
    count = rng.randint(*shape.vms_per_host)
    low, high = shape.fill
    if shape.hot_resource == "cpu":
        fill = rng.uniform(low, high)
    elif shape.hot_resource == "ram":
        fill = rng.uniform(0.99, 1.0) if hot else rng.uniform(low, high)
    else:
        fill = rng.uniform(max(low, high - 0.1), high) if hot else rng.uniform(low, high)
    budget = (ram_mb - shape.reserved_ram_mb) * fill
    cpu_budget = vcpus * shape.cpu_ratio
    vms, used_ram, used_cpu = [], 0, 0
    for _ in range(count):
        flavor = _pick_flavor(rng, budget / count, huge)
        if used_ram + flavor.ram_mb > budget or used_cpu + flavor.vcpus > cpu_budget:
            continue
        used_ram += flavor.ram_mb
        used_cpu += flavor.vcpus
        counter[0] += 1
        local = rng.random() < shape.local_disk_share
        vms.append(dict(id="vm-%07d" % counter[0], flavor=flavor, local=local))
    return vms, used_ram, used_cpu


def generate_region(shape: RegionShape, seed: int) -> m.RegionSnapshot:
    """Build one region deterministically from ``shape`` and ``seed``."""
    rng = random.Random(seed)
    n_aggs = max(1, -(-shape.hosts // shape.aggregate_size))
    hotspot_share = rng.uniform(*shape.hotspot_share)
    hypervisors, all_vms, aggregates = [], [], []
    groups = []
    counter = [0]
    for a in range(n_aggs):
        agg_name = "agg-%03d" % a
        huge = rng.random() < shape.hugepage_aggregate_share
        members = []
        first = a * shape.aggregate_size
        for h in range(first, min(shape.hosts, first + shape.aggregate_size)):
            name = "cmp-%05d" % h
            vcpus, ram_mb = rng.choice(HOST_SHAPES)
            hot = rng.random() < hotspot_share
            specs, used_ram, used_cpu = _host_vms(rng, shape, vcpus, ram_mb, huge, hot, counter)
            if shape.hot_resource is None:
                cpu_pct = rng.uniform(85, 99) if hot else rng.uniform(10, 60)
                net_pct = rng.uniform(60, 90) if hot else rng.uniform(5, 50)
            else:
                hot_cpu = hot and shape.hot_resource == "cpu"
                cpu_pct = rng.uniform(85, shape.cpu_demand_max_pct) if hot_cpu else rng.uniform(10, 60)
                net_pct = rng.uniform(5, 40)
            busy_cores = cpu_pct / 100.0 * vcpus
            vms = []
            spread = shape.vm_cpu_spread
            cpu_weights = [s["flavor"].vcpus * (1.0 if not spread else rng.uniform(
                1.0 - 0.9 * spread, 1.0 + spread)) for s in specs]
            total_weight = sum(cpu_weights) or 1
            net_capacity = 25000.0
            resident_ram = 0.0
            for s, cpu_weight in zip(specs, cpu_weights):
                flavor = s["flavor"]
                part = cpu_weight / total_weight
                if shape.hot_resource == "ram" and hot:
                    resident = flavor.ram_mb * rng.uniform(0.97, 1.0)
                elif shape.ram_resident == (1.0, 1.0):
                    resident = flavor.ram_mb
                else:
                    resident = flavor.ram_mb * rng.uniform(*shape.ram_resident)
                resident_ram += resident
                roll = rng.random()
                vms.append(m.VM(
                    id=s["id"], name=s["id"], host=name, project_id="p%d" % rng.randint(1, 20),
                    flavor=flavor, volume_backed=not s["local"],
                    no_evac=roll < shape.no_evac_share,
                    no_migr=shape.no_evac_share <= roll < shape.no_evac_share
                    + shape.no_migr_share,
                    evacuate_order=rng.randint(0, 3) if rng.random() < 0.1 else None,
                    metrics=m.VMMetrics(cpu_cores=busy_cores * part, ram_mb=resident,
                                        net_mbps=net_pct / 100.0 * net_capacity * part)))
            ram_pct = 100.0 * resident_ram / ram_mb
            hp = ()
            hp_pct = None
            if huge:
                total_pages = (ram_mb - shape.reserved_ram_mb) * 1024 // PAGE_KB
                used_pages = used_ram * 1024 // PAGE_KB
                hp = (m.HugePages(PAGE_KB, total_pages, total_pages - used_pages),)
                hp_pct = 100.0 * used_pages / total_pages
            hypervisors.append(m.Hypervisor(
                name=name, availability_zone="az1", aggregates=(agg_name,),
                service=m.ComputeService(host=name),
                inventories={
                    m.VCPU: m.Inventory(total=vcpus, allocation_ratio=shape.cpu_ratio,
                                        used=used_cpu),
                    m.MEMORY_MB: m.Inventory(total=ram_mb, reserved=shape.reserved_ram_mb,
                                             used=used_ram)},
                hugepages=hp, net_capacity_mbps=net_capacity, host_ip="10.%d.%d.%d" % (
                    h // 65536, h // 256 % 256, h % 256),
                metrics=m.HostMetrics(cpu_pct=min(100.0, cpu_pct), ram_pct=ram_pct, net_pct=net_pct,
                                      hugepages_pct=hp_pct, interfaces_known=True),
                heartbeat_at=1000.0))
            members.append(name)
            all_vms.append(vms)
        aggregates.append(m.Aggregate(agg_name, a + 1, availability_zone="az1",
                                      hosts=tuple(members)))
    vms = _with_groups(rng, shape, all_vms, groups)
    sources = {name: m.SourceStatus(name, True) for name in m.SOURCES}
    return m.RegionSnapshot(region="bench", taken_at=1000.0, aggregates=tuple(aggregates),
                            hypervisors=tuple(hypervisors), vms=tuple(vms),
                            server_groups=tuple(groups), sources=sources)


def _with_groups(rng, shape, vms_per_host, groups):
    """Put ~anti_affinity_share of VMs in anti-affinity groups, one member per host."""
    flat = []
    per_host = [list(v) for v in vms_per_host]
    n_groups = int(sum(len(v) for v in per_host) * shape.anti_affinity_share / 3)
    for g in range(n_groups):
        size = rng.randint(2, 5)
        hosts = rng.sample(range(len(per_host)), min(size, len(per_host)))
        gid = "sg-%06d" % g
        members = []
        for h in hosts:
            free = [i for i, vm in enumerate(per_host[h]) if vm.server_group_id is None]
            if not free:
                continue
            i = rng.choice(free)
            per_host[h][i] = m.replace(per_host[h][i], server_group_id=gid)
            members.append(per_host[h][i].id)
        rules = {"max_server_per_host": 1}
        groups.append(m.ServerGroup(gid, gid, m.ANTI_AFFINITY, members=tuple(members),
                                    rules=rules))
    for host_vms in per_host:
        flat.extend(host_vms)
    return flat


def moved_region(snap, moves, loads):
    """``snap`` with ``moves`` applied: VMs on their targets, allocations and host loads updated.

    ``loads`` maps host name to its scoring.Load after the moves.
    """
    target = {mv.vm_id: mv.target for mv in moves}
    vms = tuple(m.replace(vm, host=target[vm.id]) if vm.id in target else vm
                for vm in snap.vms)
    index = snap.index()
    delta = collections.defaultdict(lambda: [0, 0])
    for mv in moves:
        flavor = index.vms[mv.vm_id].flavor
        for host, sign in ((mv.source, -1), (mv.target, 1)):
            delta[host][0] += sign * flavor.vcpus
            delta[host][1] += sign * flavor.ram_mb
    hypervisors = []
    for h in snap.hypervisors:
        if h.name in delta or h.name in loads:
            inv = dict(h.inventories)
            inv[m.VCPU] = m.replace(inv[m.VCPU], used=inv[m.VCPU].used + delta[h.name][0])
            inv[m.MEMORY_MB] = m.replace(
                inv[m.MEMORY_MB], used=inv[m.MEMORY_MB].used + delta[h.name][1])
            load = loads.get(h.name, scoring.load_of(h))
            # a host still asked for more than its cores reads 100% (saturated), as measured
            cpu_pct = None if load.cpu_pct is None else min(100.0, load.cpu_pct)
            metrics = m.replace(h.metrics, cpu_pct=cpu_pct, ram_pct=load.ram_pct, net_pct=load.net_pct)
            h = m.replace(h, inventories=inv, metrics=metrics)
        hypervisors.append(h)
    return m.replace(snap, hypervisors=tuple(hypervisors), vms=vms)


def loads_after(moves) -> dict:
    """Host loads after LB ``moves``, from their load calculations (the last one per host wins)."""
    loads = {}
    for mv in moves:
        for host, calc in ((mv.source, mv.load.source), (mv.target, mv.load.target)):
            loads[host] = scoring.Load(calc.cpu_after_pct, calc.ram_after_pct, calc.net_after_pct)
    return loads
