"""Topology and workload generator: a seeded, realistic region in seconds at 10,000 hosts.

Hosts are numbered, grouped into racks and aggregates (contiguous blocks), aggregates
spread over AZs; some aggregates have HugePages hosts running HugePages flavors. Each
host is filled with a weighted flavor mix up to ``vms_per_host`` or its Placement
capacity; server groups are formed inside aggregates in a way that satisfies their
policy; a few VMs carry evacuate_order / no-evacuate / no-migrate metadata. The same
parameters and seed always give the same region.
"""

from __future__ import annotations

import bisect
import itertools
import random

from keyvrm.model.snapshot import AFFINITY
from keyvrm.model.snapshot import ANTI_AFFINITY
from keyvrm.model.snapshot import SOFT_AFFINITY
from keyvrm.model.snapshot import SOFT_ANTI_AFFINITY
from keyvrm.simulator import region as r

DEFAULT_HOST = {
    "vcpus": 64, "ram_mb": 524288, "disk_gb": 3500, "cpu_allocation_ratio": 4.0,
    "ram_allocation_ratio": 1.0, "reserved_vcpus": 2, "reserved_ram_mb": 16384,
    "net_capacity_mbps": 25000.0, "interfaces": ["bond0", "ens1f0", "ens1f1"],
}

DEFAULT_TOPOLOGY = {
    "hosts": 20, "hosts_per_aggregate": 10, "hosts_per_rack": 10, "availability_zones": 2,
    "hugepages_aggregates": 0, "aggregate_metadata": {}, "host": DEFAULT_HOST,
}

DEFAULT_FLAVORS = [
    {"name": "m1.small", "vcpus": 1, "ram_mb": 2048, "disk_gb": 20, "weight": 3},
    {"name": "m1.medium", "vcpus": 2, "ram_mb": 4096, "disk_gb": 40, "weight": 4},
    {"name": "m1.large", "vcpus": 4, "ram_mb": 8192, "disk_gb": 80, "weight": 3},
    {"name": "m1.xlarge", "vcpus": 8, "ram_mb": 16384, "disk_gb": 160, "weight": 2},
    {"name": "r1.xlarge", "vcpus": 8, "ram_mb": 65536, "disk_gb": 100, "weight": 1},
    {"name": "c1.2xlarge", "vcpus": 16, "ram_mb": 32768, "disk_gb": 100, "weight": 1},
]

DEFAULT_HUGEPAGES_FLAVORS = [
    {"name": "hp.large", "vcpus": 4, "ram_mb": 8192, "disk_gb": 40, "weight": 2,
     "extra_specs": {"hw:mem_page_size": "1GB", "hw:cpu_policy": "dedicated"}},
    {"name": "hp.xlarge", "vcpus": 8, "ram_mb": 32768, "disk_gb": 80, "weight": 1,
     "extra_specs": {"hw:mem_page_size": "1GB", "hw:cpu_policy": "dedicated"}},
]

DEFAULT_WORKLOAD = {
    "vms_per_host": 8, "projects": 20, "flavors": DEFAULT_FLAVORS,
    "hugepages_flavors": DEFAULT_HUGEPAGES_FLAVORS, "volume_backed_fraction": 0.6,
    "server_group_fraction": 0.1, "server_group_size": 3,
    "server_group_policies": {ANTI_AFFINITY: 0.6, AFFINITY: 0.1, SOFT_ANTI_AFFINITY: 0.2,
                              SOFT_AFFINITY: 0.1},
    "no_evacuate_fraction": 0.02, "no_migrate_fraction": 0.02,
    "evacuate_order_fraction": 0.1, "cpu_util": 0.3, "ram_util": 0.7, "net_mbps": 150.0,
    "dirty_mbps": 300.0,
}

# Image properties as Glance holds them on a KVM cloud; the ones ImagePropertiesFilter
# reads (architecture, hypervisor type, VM mode) on all three, legacy and current names.
IMAGES = {
    "00000000-0000-4000-a000-000000000001": {"os_type": "linux", "hw_disk_bus": "virtio",
                                             "architecture": "x86_64"},
    "00000000-0000-4000-a000-000000000002": {"os_type": "linux", "hw_vif_model": "virtio",
                                             "hw_architecture": "x86_64", "img_hv_type": "kvm",
                                             "hw_vm_mode": "hvm"},
    "00000000-0000-4000-a000-000000000003": {"os_type": "windows",
                                             "hypervisor_type": "qemu"},
}


def merged(defaults: dict, overrides: dict | None) -> dict:
    """``defaults`` with ``overrides`` on top (one level; ``host`` merged too)."""
    out = dict(defaults)
    for key, value in (overrides or {}).items():
        if key == "host" and isinstance(value, dict):
            out[key] = {**defaults.get("host", {}), **value}
        else:
            out[key] = value
    return out


def uuid_for(prefix: int, kind: int, n: int) -> str:
    """A UUID-shaped id, unique per (seed prefix, kind, n), cheap to make."""
    return f"{prefix & 0xffffffff:08x}-{kind:04x}-4000-8000-{n:012x}"


def _flavors(region, specs):
    table = []
    for spec in specs:
        flavor = region.flavors.get(spec["name"])
        if flavor is None:
            flavor = r.Flavor(spec["name"], spec["vcpus"], spec["ram_mb"],
                              spec.get("disk_gb", 0), spec.get("extra_specs"))
            region.flavors[flavor.name] = flavor
        table.append((flavor, float(spec.get("weight", 1))))
    cum = list(itertools.accumulate(w for _, w in table))
    return [f for f, _ in table], cum


def _fits(host, flavor):
    if host.used_vcpus + flavor.vcpus > host.vcpu_capacity:
        return False
    if flavor.hugepage_size_kb:
        pages = flavor.ram_mb * 1024 // max(host.hugepage_size_kb, 1)
        return host.hugepage_size_kb == flavor.hugepage_size_kb and \
            host.hugepages_used() + pages <= host.hugepages_total
    ordinary_mb = host.ram_capacity_mb - host.hugepages_total * host.hugepage_size_kb / 1024
    used_mb = host.used_ram_mb - host.hugepages_used() * host.hugepage_size_kb / 1024
    return used_mb + flavor.ram_mb <= ordinary_mb


def generate(topology: dict | None = None, workload: dict | None = None,
             options: r.RegionOptions = r.RegionOptions()) -> r.Region:
    """Build a region from generator parameters (missing ones take the defaults)."""
    topo = merged(DEFAULT_TOPOLOGY, topology)
    work = merged(DEFAULT_WORKLOAD, workload)
    region = r.Region(options)
    rng = random.Random(options.seed)
    region.images = {k: dict(v) for k, v in IMAGES.items()}
    _build_hosts(region, topo)
    _place_vms(region, topo, work, rng)
    _form_server_groups(region, work, rng)
    return region


def _build_hosts(region, topo):
    n_az = max(1, int(topo["availability_zones"]))
    region.availability_zones = [f"az-{k + 1}" for k in range(n_az)]
    per_agg = max(1, int(topo["hosts_per_aggregate"]))
    per_rack = max(1, int(topo["hosts_per_rack"]))
    n_hp = int(topo["hugepages_aggregates"])
    spec = topo["host"]
    for i in range(int(topo["hosts"])):
        k = i // per_agg
        agg_name = f"agg-{k + 1:03d}"
        agg = region.aggregates.get(agg_name)
        if agg is None:
            az = region.availability_zones[k % n_az]
            agg = r.Aggregate(agg_name, k + 1, az=az, metadata=dict(topo["aggregate_metadata"]),
                              uuid=uuid_for(region.options.seed, 0xa, k + 1))
            if k < n_hp:
                agg.metadata["hugepages"] = "true"
            region.aggregates[agg_name] = agg
        hugepages = k < n_hp
        pages = int(spec["ram_mb"] * 0.75 // 1024) if hugepages else 0
        host = r.Host(
            f"cmp-{i + 1:05d}", i, az=agg.az, rack=f"rack-{i // per_rack + 1:04d}",
            vcpus=spec["vcpus"], ram_mb=spec["ram_mb"], disk_gb=spec["disk_gb"],
            cpu_allocation_ratio=1.0 if hugepages else spec["cpu_allocation_ratio"],
            ram_allocation_ratio=spec["ram_allocation_ratio"],
            reserved_vcpus=spec["reserved_vcpus"], reserved_ram_mb=spec["reserved_ram_mb"],
            hugepage_size_kb=1048576 if hugepages else 0, hugepages_total=pages,
            net_capacity_mbps=spec["net_capacity_mbps"], interfaces=spec["interfaces"],
            host_ip=f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}")
        host.aggregates.append(agg_name)
        agg.hosts.append(host.name)
        region.add_host(host)


def _place_vms(region, topo, work, rng):
    flavors, cum = _flavors(region, work["flavors"])
    hp_flavors, hp_cum = _flavors(region, work["hugepages_flavors"])
    smallest = min(flavors, key=lambda f: (f.vcpus, f.ram_mb))
    images = sorted(region.images)
    projects = [f"project-{p + 1:03d}" for p in range(max(1, int(work["projects"])))]
    per_host = int(work["vms_per_host"])
    vb, no_evac, no_migr, order = (float(work["volume_backed_fraction"]),
                                   float(work["no_evacuate_fraction"]),
                                   float(work["no_migrate_fraction"]),
                                   float(work["evacuate_order_fraction"]))
    cpu_util, ram_util = float(work["cpu_util"]), float(work["ram_util"])
    net_mbps, dirty = float(work["net_mbps"]), float(work["dirty_mbps"])
    rand, seed, seq = rng.random, region.options.seed, 0
    for host in region.hosts.values():
        table, weights = (hp_flavors, hp_cum) if host.hugepage_size_kb else (flavors, cum)
        for _ in range(per_host):
            flavor = table[bisect.bisect_right(weights, rand() * weights[-1])]
            if not _fits(host, flavor):
                flavor = table[0] if host.hugepage_size_kb else smallest
                if not _fits(host, flavor):
                    break
            seq += 1
            metadata = None
            draw = rand()
            if draw < no_evac:
                metadata = {"ha_no_evacuate": "true"}
            elif draw < no_evac + no_migr:
                metadata = {"lb_no_migrate": "true"}
            if rand() < order:
                metadata = dict(metadata or {}, evacuate_order=str(int(rand() * 10)))
            volume_backed = rand() < vb
            vm = r.VM(uuid_for(seed, 1, seq), seq, f"vm-{seq:06d}", host.name,
                      projects[int(rand() * len(projects))], flavor,
                      image_id=None if volume_backed else images[int(rand() * len(images))],
                      metadata=metadata, volume_backed=volume_backed,
                      cpu_frac=min(1.0, cpu_util * (0.4 + 1.2 * rand())),
                      ram_frac=min(1.0, ram_util * (0.8 + 0.4 * rand())),
                      net_mbps=net_mbps * (0.2 + 1.6 * rand()),
                      dirty_mbps=dirty * (0.2 + 1.6 * rand()),
                      phase_s=3600.0 * (rand() - 0.5) * 4)
            region.add_vm(vm)


def _form_server_groups(region, work, rng):
    size = max(2, int(work["server_group_size"]))
    fraction = float(work["server_group_fraction"])
    policies = list(work["server_group_policies"].items())
    cum = list(itertools.accumulate(w for _, w in policies))
    n = 0
    for agg in region.aggregates.values():
        hosts = [region.hosts[h] for h in agg.hosts]
        n_vms = sum(len(h.vms) for h in hosts)
        for _ in range(int(round(n_vms * fraction / size))):
            policy = policies[bisect.bisect_right(cum, rng.random() * cum[-1])][0]
            if policy in (ANTI_AFFINITY, SOFT_ANTI_AFFINITY):
                picked_hosts = rng.sample(hosts, min(size, len(hosts)))
                members = [_free_vm(h, rng) for h in picked_hosts]
            else:
                host = hosts[int(rng.random() * len(hosts))]
                members = [_free_vm(host, rng) for _ in range(size)]
            members = list({id(v): v for v in members if v is not None}.values())
            if len(members) < 2:
                continue
            n += 1
            group = r.ServerGroup(uuid_for(region.options.seed, 2, n), f"sg-{n:05d}", policy,
                                  project_id=members[0].project_id)
            region.server_groups[group.id] = group
            for vm in members:
                vm.server_group_id = group.id
                group.members.append(vm.id)


def _free_vm(host, rng):
    """A VM of ``host`` not yet in a server group, or None."""
    free = [v for v in host.vms if v.server_group_id is None]
    return free[int(rng.random() * len(free))] if free else None
