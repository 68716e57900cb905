"""The small simulated region the flow tests run on (8 hosts in 2 aggregates, 3 VMs each) and its faults."""

from keyvrm.scenarios import scenario

HA_AGG, LB_AGG = "agg-001", "agg-002"  # hosts cmp-00001..4 and cmp-00005..8
# The small hosts (32 vCPUs, 3 VMs) use 11-15 % CPU; an overloaded one (its VMs at their
# flavors' limit) 15.6 %: balance on CPU alone, overloaded above 15 %.
CPU_LB = {"no_op_mode": False, "lb_weights": {"cpu": 1.0, "ram": 0.0, "net": 0.0, "hugepages": 0.0},
          "lb_overload_threshold": 15.0, "lb_target_max_load": 14.9}

SMALL = """
name: flows-small
seed: 7
duration: 1h
region:
  service_down_time_s: 60
  evacuate_to_shutoff: true
  instance_storage: %(storage)s
topology:
  hosts: 8
  hosts_per_aggregate: 4
  hosts_per_rack: 4
  availability_zones: 1
  host: {vcpus: 32, ram_mb: 131072, reserved_ram_mb: 4096}
workload:
  vms_per_host: 3
  server_group_fraction: 0
timeline:%(timeline)s
"""


def small_region(timeline="", instance_storage="shared"):
    """The started small region with ``timeline`` (YAML list items, e.g. from ``dies``)."""
    text = SMALL % {"storage": instance_storage, "timeline": "\n" + timeline if timeline else " []"}
    return scenario.loads(text).start()


def dies(host, at="1m"):
    return "  - at: %s\n    fault: host_dies\n    hosts: [%s]\n    bmc: 'off'\n" % (at, host)


def heartbeat_stops(host, at="1m"):
    """The host's heartbeat agent stops; the host, its BMC (on) and nova-compute live on."""
    return "  - at: %s\n    fault: heartbeat_stops\n    hosts: [%s]\n" % (at, host)


def overloads(host, at="0m"):
    return ("  - at: %s\n    fault: overload\n    hosts: [%s]\n    cpu_factor: 8.0\n    ramp: 1m\n"
            % (at, host))


def scheduler_refuses(at="0m", count=1):
    """Nova's scheduler refuses the next ``count`` migrations (NoValidHost), whose targets look fit to every API."""
    return "  - at: %s\n    fault: scheduler_refuses\n    count: %d\n" % (at, count)
