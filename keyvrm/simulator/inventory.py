"""Explicit inventories: a region written out as a document (YAML or JSON) and read back.

Layout (``format: keyvrm.sim.inventory``, ``version: 1``)::

    availability_zones: [az-1, ...]
    flavors:  [{name, vcpus, ram_mb, disk_gb, extra_specs}]
    images:   [{id, properties}]
    aggregates: [{name, nova_id, availability_zone, metadata, hosts: [host, ...]}]
    hosts:    [{name, availability_zone, rack, vcpus, ram_mb, disk_gb,
                cpu_allocation_ratio, ram_allocation_ratio, reserved_vcpus,
                reserved_ram_mb, hugepage_size_kb, hugepages_total, net_capacity_mbps,
                interfaces, host_ip, hypervisor_type, hypervisor_version, cpu_arch,
                kvm, traits}]
    server_groups: [{id, name, policy, rules, project_id}]
    vms: [{id, name, host, project_id, flavor, image_id, server_group_id, metadata,
           volume_backed, status, load: [cpu_frac, ram_frac, net_mbps, dirty_mbps, phase_s]}]

Only ``name`` (and ``vcpus``/``ram_mb`` of flavors, ``host``/``flavor`` of VMs) are
required; other host fields take ``keyvrm.simulator.generator.DEFAULT_HOST``'s values.
``scenario.INVENTORY_SCHEMA`` validates a document before ``load`` builds it.
"""

from __future__ import annotations

from keyvrm.simulator import generator
from keyvrm.simulator import region as r

FORMAT = "keyvrm.sim.inventory"
VERSION = 1

_HOST_FIELDS = ("vcpus", "ram_mb", "disk_gb", "cpu_allocation_ratio", "ram_allocation_ratio",
                "reserved_vcpus", "reserved_ram_mb", "hugepage_size_kb", "hugepages_total",
                "net_capacity_mbps", "host_ip", "hypervisor_type", "hypervisor_version",
                "cpu_arch", "kvm")


def dump(region: r.Region) -> dict:
    """The inventory document of ``region`` as it is now (JSON/YAML-ready)."""
    hosts = []
    for h in region.hosts.values():
        row = {"name": h.name, "availability_zone": h.az, "rack": h.rack}
        row.update({f: getattr(h, f) for f in _HOST_FIELDS})
        row["interfaces"] = list(h.interfaces)
        row["traits"] = list(h.traits)
        hosts.append(row)
    vms = []
    for v in region.vms.values():
        row = {"id": v.id, "name": v.name, "host": v.host, "project_id": v.project_id,
               "flavor": v.flavor.name, "load": [round(v.cpu_frac, 4), round(v.ram_frac, 4),
                                                 round(v.net_mbps, 2), round(v.dirty_mbps, 2),
                                                 round(v.phase_s, 1)]}
        if v.image_id:
            row["image_id"] = v.image_id
        if v.server_group_id:
            row["server_group_id"] = v.server_group_id
        if v.metadata:
            row["metadata"] = dict(v.metadata)
        if v.volume_backed:
            row["volume_backed"] = True
        if v.status != r.ACTIVE:
            row["status"] = v.status
        vms.append(row)
    return {
        "format": FORMAT, "version": VERSION, "region": region.name,
        "availability_zones": list(region.availability_zones),
        "flavors": [{"name": f.name, "vcpus": f.vcpus, "ram_mb": f.ram_mb,
                     "disk_gb": f.disk_gb, "extra_specs": dict(f.extra_specs)}
                    for f in region.flavors.values()],
        "images": [{"id": i, "properties": dict(p)} for i, p in region.images.items()],
        "aggregates": [{"name": a.name, "nova_id": a.nova_id, "availability_zone": a.az,
                        "metadata": dict(a.metadata), "hosts": list(a.hosts)}
                       for a in region.aggregates.values()],
        "hosts": hosts,
        "server_groups": [{"id": g.id, "name": g.name, "policy": g.policy,
                           "rules": dict(g.rules), "project_id": g.project_id}
                          for g in region.server_groups.values()],
        "vms": vms,
    }


def load(document: dict, options: r.RegionOptions = r.RegionOptions()) -> r.Region:
    """Build a region from a validated inventory document."""
    region = r.Region(options)
    region.availability_zones = list(document.get("availability_zones", ()))
    for f in document.get("flavors", ()):
        region.flavors[f["name"]] = r.Flavor(f["name"], f["vcpus"], f["ram_mb"],
                                             f.get("disk_gb", 0), f.get("extra_specs"))
    region.images = {i["id"]: dict(i.get("properties", {})) for i in document.get("images", ())}
    for index, spec in enumerate(document.get("hosts", ())):
        kwargs = {k: spec[k] for k in _HOST_FIELDS if spec.get(k) is not None}
        defaults = {k: v for k, v in generator.DEFAULT_HOST.items() if k not in kwargs}
        defaults.pop("interfaces", None)
        kwargs.update(defaults)
        region.add_host(r.Host(spec["name"], index, az=spec.get("availability_zone"),
                               rack=spec.get("rack"),
                               interfaces=spec.get("interfaces",
                                                   generator.DEFAULT_HOST["interfaces"]),
                               traits=spec.get("traits", ()), **kwargs))
    for k, spec in enumerate(document.get("aggregates", ())):
        agg = r.Aggregate(spec["name"], spec.get("nova_id", k + 1),
                          az=spec.get("availability_zone"), metadata=spec.get("metadata"),
                          hosts=spec.get("hosts", ()))
        region.aggregates[agg.name] = agg
        for host_name in agg.hosts:
            region.hosts[host_name].aggregates.append(agg.name)
    for spec in document.get("server_groups", ()):
        region.server_groups[spec["id"]] = r.ServerGroup(
            spec["id"], spec.get("name", spec["id"]), spec["policy"], rules=spec.get("rules"),
            project_id=spec.get("project_id"))
    for seq, spec in enumerate(document.get("vms", ()), start=1):
        load_profile = spec.get("load") or [0.3, 0.7, 100.0, 200.0, 0.0]
        region.add_vm(r.VM(spec["id"], seq, spec.get("name", spec["id"]), spec["host"],
                           spec.get("project_id", "project-001"),
                           region.flavors[spec["flavor"]], image_id=spec.get("image_id"),
                           server_group_id=spec.get("server_group_id"),
                           metadata=spec.get("metadata"),
                           volume_backed=spec.get("volume_backed", False),
                           status=spec.get("status", r.ACTIVE),
                           cpu_frac=load_profile[0], ram_frac=load_profile[1],
                           net_mbps=load_profile[2], dirty_mbps=load_profile[3],
                           phase_s=load_profile[4]))
    return region
