"""Hand-made snapshot pieces for planning and scheduling tests."""

from keyvrm.model.settings import AggregateConfig
from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity
from keyvrm.scheduling.host_state import HostState
from keyvrm.scheduling.request import PlacementRequest

NOW_S = 1_000_000.0
AGG = "agg1"


def flavor(vcpus=2, ram_mb=4096, name=None, **extra_specs):
    return m.Flavor(name or "f%dc%dm" % (vcpus, ram_mb), vcpus, ram_mb,
                    extra_specs=dict(extra_specs))


def host(name, vcpus=32, ram_mb=131072, used_vcpus=0, used_ram_mb=0, cpu_ratio=1.0,
         ram_ratio=1.0, reserved_ram_mb=0, state=m.SERVICE_UP, status=m.SERVICE_ENABLED,
         cpu_pct=None, ram_pct=None, net_pct=None, hugepages=(), heartbeat_age_s=5.0,
         down_interfaces=(), aggregates=(AGG,), **kwargs):
    inventories = {
        m.VCPU: m.Inventory(total=vcpus, allocation_ratio=cpu_ratio, used=used_vcpus),
        m.MEMORY_MB: m.Inventory(total=ram_mb, reserved=reserved_ram_mb,
                                 allocation_ratio=ram_ratio, used=used_ram_mb),
    }
    metrics = m.HostMetrics(cpu_pct=cpu_pct, ram_pct=ram_pct, net_pct=net_pct,
                            down_interfaces=tuple(down_interfaces), interfaces_known=True)
    heartbeat = None if heartbeat_age_s is None else NOW_S - heartbeat_age_s
    kwargs.setdefault("host_ip", "10.0.0.1")
    return m.Hypervisor(name=name, aggregates=tuple(aggregates),
                        service=m.ComputeService(host=name, state=state, status=status),
                        inventories=inventories, hugepages=tuple(hugepages), metrics=metrics,
                        heartbeat_at=heartbeat, **kwargs)


def vm(vm_id, host_name, vcpus=2, ram_mb=4096, project="p1", fl=None, **kwargs):
    kwargs.setdefault("volume_backed", True)
    return m.VM(id=vm_id, name=vm_id, host=host_name, project_id=project,
                flavor=fl or flavor(vcpus, ram_mb), **kwargs)


def snapshot(hosts, vms=(), groups=(), images=(), agg_metadata=None, failed_sources=(),
             extra_aggregates=()):
    sources = {name: m.SourceStatus(name, name not in failed_sources) for name in m.SOURCES}
    aggregate = m.Aggregate(AGG, 1, metadata=dict(agg_metadata or {}),
                            hosts=tuple(h.name for h in hosts))
    return m.RegionSnapshot(region="r1", taken_at=NOW_S, aggregates=(aggregate,) + tuple(
        extra_aggregates), hypervisors=tuple(hosts), vms=tuple(vms),
        server_groups=tuple(groups), images=tuple(images), sources=sources)


def agg_config(**kwargs):
    kwargs.setdefault("marker", "HA+LB")
    kwargs.setdefault("no_op_mode", False)
    return AggregateConfig(name=AGG, **kwargs)


def host_state(hypervisor, vms=(), aggregates=()):
    return HostState(hypervisor, tuple(aggregates), vms)


def request(the_vm, image=None, group=None, group_hosts=()):
    return PlacementRequest(vm=the_vm, resources=capacity.resource_request_of(the_vm, image),
                            image=image, server_group=group, group_hosts=frozenset(group_hosts))
