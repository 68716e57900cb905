"""Scripted faults of the simulated region, each a function that fires at a set time.

Every fault takes resolved parameters (host names, ``duration_s`` where the fault heals
by itself) and records itself in ``region.faults_fired``. ``FAULTS`` maps a scenario's
``fault`` name to (function, parameters it accepts, whether it needs hosts).
"""

from __future__ import annotations

from keyvrm.simulator import power
from keyvrm.simulator import region as r


def _hosts(region, params):
    return [region.hosts[name] for name in params.get("hosts", ())]


def _heal_later(region, params, callback, *args):
    duration = params.get("duration_s")
    if duration is not None:
        region.clock.call_later(duration, callback, *args)


def host_dies(region: r.Region, params: dict) -> None:
    """Power lost: VMs stop, heartbeat and service reports stop; BMC off or unreachable."""
    bmc = params.get("bmc", "off")
    for host in _hosts(region, params):
        power.power_down(region, host)
        host.bmc_mode = r.BMC_UNREACHABLE if bmc == "unreachable" else r.BMC_OK
    region.record_fault("host_dies", params["hosts"])


def host_recovers(region: r.Region, params: dict) -> None:
    """Power and network back: the host boots, nova-compute reports again."""
    for host in _hosts(region, params):
        host.bmc_mode = r.BMC_OK
        region.set_host_condition(host, partitioned=False, agent_running=True)
        if not host.powered:
            power.power_up(region, host)
        else:
            region.set_host_condition(host, compute_running=True)
    region.record_fault("host_recovers", params["hosts"])


def _condition_fault(region, params, fault, healed, condition, faulty_value):
    """Set ``condition`` on the fault's hosts; restore it after ``heal_after`` if given."""
    hosts = _hosts(region, params)
    for host in hosts:
        region.set_host_condition(host, **{condition: faulty_value})
    region.record_fault(fault, params["hosts"])
    _heal_later(region, params, _restore_condition, region, hosts, healed, condition,
                not faulty_value)


def _restore_condition(region, hosts, healed, condition, value):
    for host in hosts:
        region.set_host_condition(host, **{condition: value})
    region.record_fault(healed, [h.name for h in hosts])


def network_partition(region: r.Region, params: dict) -> None:
    """Hosts cut from the management network; their BMC network still answers.

    VMs keep running; heartbeats, service reports and metrics stop arriving.
    """
    _condition_fault(region, params, "network_partition", "network_partition_healed",
                     "partitioned", True)


def compute_stops(region: r.Region, params: dict) -> None:
    """nova-compute stops on live hosts (the heartbeat agent keeps writing)."""
    _condition_fault(region, params, "compute_stops", "compute_restarts", "compute_running",
                     False)


def heartbeat_stops(region: r.Region, params: dict) -> None:
    """The heartbeat agent stops on live hosts (nova-compute keeps reporting)."""
    _condition_fault(region, params, "heartbeat_stops", "heartbeat_restarts", "agent_running",
                     False)


def host_hangs(region: r.Region, params: dict) -> None:
    """Hosts hang: heartbeat agent and metrics exporter stop; nova-compute reports on, the BMC answers on."""
    hosts = _hosts(region, params)
    for host in hosts:
        region.set_host_condition(host, agent_running=False, exporter_running=False)
    region.record_fault("host_hangs", params["hosts"])
    _heal_later(region, params, _host_resumes, region, hosts)


def _host_resumes(region, hosts):
    for host in hosts:
        region.set_host_condition(host, agent_running=True, exporter_running=True)
    region.record_fault("host_resumes", [h.name for h in hosts])


def interface_down(region: r.Region, params: dict) -> None:
    """A named interface goes down on the hosts."""
    name = params["interface"]
    hosts = _hosts(region, params)
    for host in hosts:
        host.down_interfaces = tuple(sorted(set(host.down_interfaces) | {name}))
    region.record_fault("interface_down", params["hosts"])
    _heal_later(region, params, _interface_up, region, hosts, name)


def _interface_up(region, hosts, name):
    for host in hosts:
        host.down_interfaces = tuple(i for i in host.down_interfaces if i != name)
    region.record_fault("interface_up", [h.name for h in hosts])


def bmc_fault(region: r.Region, params: dict) -> None:
    """The hosts' BMCs refuse requests or time out."""
    mode = params.get("mode", r.BMC_REFUSE)
    hosts = _hosts(region, params)
    for host in hosts:
        host.bmc_mode = mode
    region.record_fault(f"bmc_{mode}", params["hosts"])
    _heal_later(region, params, _bmc_ok, region, hosts)


def _bmc_ok(region, hosts):
    for host in hosts:
        if host.bmc_mode in (r.BMC_REFUSE, r.BMC_TIMEOUT):
            host.bmc_mode = r.BMC_OK


def nova_api_503(region: r.Region, params: dict) -> None:
    """Nova's API answers 503 for ``duration_s``."""
    region.nova_unavailable_until = region.now + params.get("duration_s", 60.0)
    region.record_fault("nova_api_503")


def metrics_outage(region: r.Region, params: dict) -> None:
    """The TSDB does not answer for ``duration_s``."""
    region.metrics_unavailable_until = region.now + params.get("duration_s", 60.0)
    region.record_fault("metrics_outage")


def heartbeat_outage(region: r.Region, params: dict) -> None:
    """The heartbeat store does not answer for ``duration_s``."""
    region.heartbeat_unavailable_until = region.now + params.get("duration_s", 60.0)
    region.record_fault("heartbeat_outage")


def migration_stuck(region: r.Region, params: dict) -> None:
    """The next ``count`` migrations (touching ``hosts`` if given) never finish."""
    hosts = frozenset(params["hosts"]) if params.get("hosts") else None
    region.stuck_rules.append([hosts, int(params.get("count", 1))])
    region.record_fault("migration_stuck", params.get("hosts", ()))


def migration_fails(region: r.Region, params: dict) -> None:
    """The next ``count`` live migrations (touching ``hosts`` if given) end failed, the VM left on its source."""
    hosts = frozenset(params["hosts"]) if params.get("hosts") else None
    region.failing_rules.append([hosts, int(params.get("count", 1))])
    region.record_fault("migration_fails", params.get("hosts", ()))


def scheduler_refuses(region: r.Region, params: dict) -> None:
    """Nova's scheduler refuses the next ``count`` migrations to ``hosts`` (any target if none): NoValidHost.

    The targets look fit to every API (service up and enabled, room in Placement): as a
    restored host does while its resource provider still carries ``COMPUTE_STATUS_DISABLED``
    (Nova drops the trait only once the compute answers). Nova accepts the request, then
    the migration ends ``error`` with "No valid host was found. " (an evacuated server ERROR).
    """
    hosts = frozenset(params["hosts"]) if params.get("hosts") else None
    region.refusing_rules.append([hosts, int(params.get("count", 1))])
    region.record_fault("scheduler_refuses", params.get("hosts", ()))


def engine_loses_flow(region: r.Region, params: dict) -> None:
    """The engine loses the flow of the next ``count`` migrations (touching ``hosts`` if given) once Nova accepts them.

    The migration goes on in Nova. The engine step that asked for it gets an error
    nothing in KeyVRM handles, so TaskFlow reverts and forgets its flow, as it does a flow
    that failed on a database error: the recommendation stays ``running`` and its VM
    locked, and no flow carries them on. Only the leader's sweep finds such work.
    """
    hosts = frozenset(params["hosts"]) if params.get("hosts") else None
    region.lost_flow_rules.append([hosts, int(params.get("count", 1))])
    region.record_fault("engine_loses_flow", params.get("hosts", ()))


EVACUATION_STEPS = ("before_accept", "accepted", "rebuilding", "done")


def evacuation_target_dies(region: r.Region, params: dict) -> None:
    """The target of each of the next ``count`` evacuations (to ``hosts`` if given) dies at ``step``.

    ``before_accept``: as Nova's API takes the call (it accepts: its service still counts
    up); ``accepted``: just after (the conductor's rebuild cast is then lost);
    ``rebuilding``: once its nova-compute began the rebuild; ``done``: once the rebuild
    ended and the server is on it (before KeyVRM read that). It dies as ``host_dies``.
    """
    step = params.get("step", "accepted")
    if step not in EVACUATION_STEPS:
        raise ValueError("step must be one of %s, got %r" % (", ".join(EVACUATION_STEPS), step))
    hosts = frozenset(params["hosts"]) if params.get("hosts") else None
    remaining = [int(params.get("count", 1))]

    def watch(at_step, server_id, target):
        if at_step != step or remaining[0] <= 0 or (hosts is not None and target not in hosts):
            return
        if not region.hosts[target].powered:
            return
        remaining[0] -= 1
        region.record_fault("evacuation_target_dies", [target, server_id])
        host_dies(region, {"hosts": [target], "bmc": params.get("bmc", "off")})

    region.evacuation_watchers.append(watch)
    region.record_fault("evacuation_target_dies_armed", params.get("hosts", ()))


def ceph_outage(region: r.Region, params: dict) -> None:
    """The Ceph monitors do not answer for ``duration_s``: no blocklist can be added or read."""
    region.ceph_unavailable_until = region.now + params.get("duration_s", 60.0)
    region.record_fault("ceph_outage")


def aggregate_deleted(region: r.Region, params: dict) -> None:
    """An operator deletes host aggregate ``aggregate`` in Nova (its hosts stay, in no aggregate)."""
    aggregate = region.aggregates.pop(params["aggregate"])
    for name in aggregate.hosts:
        region.hosts[name].aggregates = [a for a in region.hosts[name].aggregates if a != aggregate.name]
    region.record_fault("aggregate_deleted", [aggregate.name])


def overload(region: r.Region, params: dict) -> None:
    """The VMs now on the hosts ramp their CPU (and network) demand up over ``ramp_s``.

    With ``duration_s`` it is a burst: that long after it began, those VMs (wherever they
    run by then) ask for what they did before.
    """
    ramped = []
    for host in _hosts(region, params):
        for vm in host.vms:
            vm.ramp_start_s = region.now
            vm.ramp_s = float(params.get("ramp_s", 600.0))
            vm.ramp_cpu = float(params.get("cpu_factor", 2.5))
            vm.ramp_net = float(params.get("net_factor", 1.0))
            ramped.append(vm)
    region.record_fault("overload", params["hosts"])
    _heal_later(region, params, _overload_ends, ramped)


def _overload_ends(vms):
    for vm in vms:
        vm.ramp_start_s = None


# name -> (function, accepted parameters besides host selectors, needs hosts)
FAULTS = {
    "host_dies": (host_dies, ("bmc",), True),
    "host_recovers": (host_recovers, (), True),
    "network_partition": (network_partition, ("duration_s",), True),
    "compute_stops": (compute_stops, ("duration_s",), True),
    "heartbeat_stops": (heartbeat_stops, ("duration_s",), True),
    "host_hangs": (host_hangs, ("duration_s",), True),
    "interface_down": (interface_down, ("interface", "duration_s"), True),
    "bmc_fault": (bmc_fault, ("mode", "duration_s"), True),
    "nova_api_503": (nova_api_503, ("duration_s",), False),
    "metrics_outage": (metrics_outage, ("duration_s",), False),
    "heartbeat_outage": (heartbeat_outage, ("duration_s",), False),
    "migration_stuck": (migration_stuck, ("count",), False),
    "migration_fails": (migration_fails, ("count",), False),
    "scheduler_refuses": (scheduler_refuses, ("count",), False),
    "engine_loses_flow": (engine_loses_flow, ("count",), False),
    "evacuation_target_dies": (evacuation_target_dies, ("step", "count", "bmc"), False),
    "ceph_outage": (ceph_outage, ("duration_s",), False),
    "aggregate_deleted": (aggregate_deleted, ("aggregate",), False),
    "overload": (overload, ("cpu_factor", "net_factor", "ramp_s", "duration_s"), True),
}


def schedule(region: r.Region, at_s: float, kind: str, params: dict):
    """Fire fault ``kind`` with ``params`` ``at_s`` seconds after the region's start."""
    function = FAULTS[kind][0]
    return region.clock.call_at(region.clock.start_s + at_s, function, region, params)
