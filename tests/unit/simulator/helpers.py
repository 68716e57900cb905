"""Small hand-made regions for the simulator tests."""

from keyvrm.simulator import region as r


def small_region(hosts=4, evacuate_to_shutoff=True, **options):
    """``hosts`` empty 16-vCPU/64 GB hosts (cmp-1..) in one aggregate, no VMs."""
    region = r.Region(r.RegionOptions(evacuate_to_shutoff=evacuate_to_shutoff, **options))
    region.availability_zones = ["az-1"]
    agg = r.Aggregate("agg-1", 1, az="az-1")
    region.aggregates["agg-1"] = agg
    region.flavors["m1.large"] = r.Flavor("m1.large", 4, 8192, 40)
    for i in range(hosts):
        host = region.add_host(r.Host(f"cmp-{i + 1}", i, az="az-1", rack="rack-1", vcpus=16,
                                      ram_mb=65536, cpu_allocation_ratio=1.0,
                                      net_capacity_mbps=10000, host_ip=f"10.0.0.{i + 1}"))
        host.aggregates.append("agg-1")
        agg.hosts.append(host.name)
    return region


def add_vm(region, vm_id, host, group=None, cpu_frac=0.5, volume_backed=True):
    """A running m1.large VM on ``host``."""
    return region.add_vm(r.VM(vm_id, len(region.vms) + 1, vm_id, host, "p1",
                              region.flavors["m1.large"], server_group_id=group,
                              volume_backed=volume_backed, cpu_frac=cpu_frac))
