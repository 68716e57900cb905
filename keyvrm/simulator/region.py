"""The simulated region's mutable model: hosts, VMs, server groups, aggregates, migrations.

Plain ``__slots__`` classes so a 10,000-host / 200,000-VM region stays small; snapshot
dataclasses are built only when a driver reads. Heartbeats and compute-service reports
are periodic writes computed on read (the last tick of the writer's period while the
writer lives), so an idle region costs no events at all.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
import threading
from typing import Optional

from keyvrm.simulator.clock import SimClock

ACTIVE = "ACTIVE"
SHUTOFF = "SHUTOFF"
ERROR = "ERROR"

# BMC behaviours.
BMC_OK = "ok"
BMC_REFUSE = "refuse"
BMC_TIMEOUT = "timeout"
BMC_UNREACHABLE = "unreachable"
BMC_MODES = (BMC_OK, BMC_REFUSE, BMC_TIMEOUT, BMC_UNREACHABLE)

# Host states as the region (not Nova) knows them, worst first.
HOST_OFF = "off"
HOST_PARTITIONED = "partitioned"
HOST_COMPUTE_DOWN = "compute_down"
HOST_DISABLED = "disabled"
HOST_UP = "up"
HOST_STATES = (HOST_OFF, HOST_PARTITIONED, HOST_COMPUTE_DOWN, HOST_DISABLED, HOST_UP)


STORAGE_SHARED = "shared"
STORAGE_LOCAL = "local"
INSTANCE_STORAGES = (STORAGE_SHARED, STORAGE_LOCAL)


@dataclasses.dataclass(frozen=True)
class RegionOptions:
    """Behaviour knobs of one simulated region (times in simulated seconds)."""

    name: str = "RegionOne"
    seed: int = 0
    start_s: float = 1767225600.0
    service_down_time_s: float = 60.0
    report_interval_s: float = 10.0
    heartbeat_interval_s: float = 10.0
    evacuate_to_shutoff: bool = True  # Nova microversion >= 2.95
    # Where image-backed disks really live: "shared" (Ceph RBD: an evacuation keeps them) or
    # "local" (Nova rebuilds them from the image on the target: their data is lost).
    instance_storage: str = "shared"
    scheduling_delay_s: float = 1.0
    evacuation_s: float = 20.0
    migration_bandwidth_mbps: float = 10000.0
    migration_base_s: float = 3.0
    migration_failure_rate: float = 0.0
    stop_delay_s: float = 2.0
    power_off_delay_s: float = 3.0
    diurnal_amplitude: float = 0.2
    noise: float = 0.05
    noise_period_s: float = 60.0


class Flavor:
    __slots__ = ("name", "vcpus", "ram_mb", "disk_gb", "extra_specs", "hugepage_size_kb")

    def __init__(self, name, vcpus, ram_mb, disk_gb=0, extra_specs=None):
        self.name = name
        self.vcpus = int(vcpus)
        self.ram_mb = int(ram_mb)
        self.disk_gb = int(disk_gb)
        self.extra_specs = dict(extra_specs or {})
        self.hugepage_size_kb = _page_size_kb(self.extra_specs.get("hw:mem_page_size"))


def _page_size_kb(value) -> int:
    """The HugePage size a flavor asks for via ``hw:mem_page_size``; 0 for none."""
    if value in (None, "", "small", "4KB", "4096"):
        return 0
    if value in ("large", "1GB", "1048576"):
        return 1048576
    if value in ("2MB", "2048"):
        return 2048
    return 1048576


class Host:
    """One hypervisor: capacity, placement usage, power/BMC/network state, its VMs."""

    __slots__ = (
        "name", "index", "az", "rack", "aggregates", "vcpus", "ram_mb", "disk_gb",
        "cpu_allocation_ratio", "ram_allocation_ratio", "reserved_vcpus", "reserved_ram_mb",
        "hugepage_size_kb", "hugepages_total", "net_capacity_mbps", "interfaces", "host_ip",
        "hypervisor_type", "hypervisor_version", "traits", "cpu_arch", "kvm",
        "powered", "partitioned", "compute_running", "agent_running", "exporter_running", "forced_down",
        "disabled",
        "disabled_reason", "bmc_mode", "down_interfaces", "used_vcpus", "used_ram_mb",
        "orphan_vcpus", "orphan_ram_mb", "vms",
        "hb_frozen_s", "hb_resumed_s", "svc_frozen_s", "svc_resumed_s",
    )

    def __init__(self, name, index, az=None, rack=None, vcpus=64, ram_mb=262144,
                 disk_gb=2000, cpu_allocation_ratio=4.0, ram_allocation_ratio=1.0,
                 reserved_vcpus=0, reserved_ram_mb=0, hugepage_size_kb=0, hugepages_total=0,
                 net_capacity_mbps=25000.0, interfaces=("bond0",), host_ip=None,
                 hypervisor_type="QEMU", hypervisor_version=8002000, traits=(),
                 cpu_arch="x86_64", kvm=True):
        self.name = name
        self.index = index
        self.az = az
        self.rack = rack
        self.aggregates = []
        self.vcpus = int(vcpus)
        self.ram_mb = int(ram_mb)
        self.disk_gb = int(disk_gb)
        self.cpu_allocation_ratio = float(cpu_allocation_ratio)
        self.ram_allocation_ratio = float(ram_allocation_ratio)
        self.reserved_vcpus = int(reserved_vcpus)
        self.reserved_ram_mb = int(reserved_ram_mb)
        self.hugepage_size_kb = int(hugepage_size_kb)
        self.hugepages_total = int(hugepages_total)
        self.net_capacity_mbps = float(net_capacity_mbps)
        self.interfaces = tuple(interfaces)
        self.host_ip = host_ip
        self.hypervisor_type = hypervisor_type
        self.hypervisor_version = int(hypervisor_version)
        self.traits = tuple(traits)
        self.cpu_arch = cpu_arch  # what libvirt reports as the host CPU's arch
        self.kvm = bool(kvm)  # /dev/kvm present: no Nova API says so
        self.powered = True
        self.partitioned = False
        self.compute_running = True
        self.agent_running = True
        self.exporter_running = True
        self.forced_down = False
        self.disabled = False
        self.disabled_reason = None
        self.bmc_mode = BMC_OK
        self.down_interfaces = ()
        self.used_vcpus = 0
        self.used_ram_mb = 0
        self.orphan_vcpus = 0
        self.orphan_ram_mb = 0
        self.vms = []
        self.hb_frozen_s = -math.inf
        self.hb_resumed_s = -math.inf
        self.svc_frozen_s = -math.inf
        self.svc_resumed_s = -math.inf

    @property
    def vcpu_capacity(self) -> float:
        return (self.vcpus - self.reserved_vcpus) * self.cpu_allocation_ratio

    @property
    def ram_capacity_mb(self) -> float:
        return (self.ram_mb - self.reserved_ram_mb) * self.ram_allocation_ratio

    @property
    def heartbeat_writing(self) -> bool:
        """The heartbeat agent runs and its writes reach the store."""
        return self.powered and self.agent_running and not self.partitioned

    @property
    def compute_reporting(self) -> bool:
        """nova-compute runs and its service reports reach Nova's DB."""
        return self.powered and self.compute_running and not self.partitioned

    @property
    def reachable(self) -> bool:
        """The host runs and its management network works (metrics, migrations)."""
        return self.powered and not self.partitioned

    @property
    def scraped(self) -> bool:
        """The TSDB scrapes the host's exporter (its metrics target is up)."""
        return self.reachable and self.exporter_running

    def supported_instances(self) -> list:
        """The compute node's (arch, hv type, vm mode) triples, as its Nova driver reports them.

        Only Nova's scheduler sees these (no API returns them). A "QEMU" (libvirt) host runs
        hvm guests of its arch (and i686 on x86_64) with qemu, and with kvm where /dev/kvm
        exists; any other type runs (its arch, its type, hvm).
        """
        if self.hypervisor_type.lower() != "qemu":
            return [(self.cpu_arch, self.hypervisor_type.lower(), "hvm")]
        guests = (self.cpu_arch, "i686") if self.cpu_arch == "x86_64" else (self.cpu_arch,)
        domains = ("kvm", "qemu") if self.kvm else ("qemu",)
        return [(guest, domain, "hvm") for guest in guests for domain in domains]

    def hugepages_used(self) -> int:
        """HugePages the VMs placed here hold."""
        if not self.hugepage_size_kb:
            return 0
        used = 0
        for vm in self.vms:
            if vm.flavor.hugepage_size_kb:
                used += vm.flavor.ram_mb * 1024 // self.hugepage_size_kb
        return used


class VM:
    """One server: flavor, placement, Nova state, exclusion metadata and load profile."""

    __slots__ = (
        "id", "seq", "name", "host", "project_id", "flavor", "status", "task_state",
        "image_id", "server_group_id", "metadata", "volume_backed", "running",
        "cpu_frac", "ram_frac", "net_mbps", "dirty_mbps", "phase_s",
        "ramp_start_s", "ramp_s", "ramp_cpu", "ramp_net",
    )

    def __init__(self, id, seq, name, host, project_id, flavor, image_id=None,
                 server_group_id=None, metadata=None, volume_backed=False, status=ACTIVE,
                 cpu_frac=0.3, ram_frac=0.7, net_mbps=100.0, dirty_mbps=200.0, phase_s=0.0):
        self.id = id
        self.seq = seq
        self.name = name
        self.host = host
        self.project_id = project_id
        self.flavor = flavor
        self.status = status
        self.task_state = None
        self.image_id = image_id
        self.server_group_id = server_group_id
        self.metadata = metadata
        self.volume_backed = bool(volume_backed)
        self.running = status == ACTIVE
        self.cpu_frac = cpu_frac
        self.ram_frac = ram_frac
        self.net_mbps = net_mbps
        self.dirty_mbps = dirty_mbps
        self.phase_s = phase_s
        self.ramp_start_s = None
        self.ramp_s = 0.0
        self.ramp_cpu = 1.0
        self.ramp_net = 1.0


class ServerGroup:
    __slots__ = ("id", "name", "policy", "members", "rules", "project_id")

    def __init__(self, id, name, policy, members=None, rules=None, project_id=None):
        self.id = id
        self.name = name
        self.policy = policy
        self.members = list(members or [])
        self.rules = dict(rules or {})
        self.project_id = project_id


class Aggregate:
    __slots__ = ("name", "nova_id", "uuid", "az", "metadata", "hosts")

    def __init__(self, name, nova_id, az=None, metadata=None, hosts=None, uuid=None):
        self.name = name
        self.nova_id = nova_id
        self.uuid = uuid
        self.az = az
        self.metadata = dict(metadata or {})
        self.hosts = list(hosts or [])


class EngineFlowLost(RuntimeError):
    """What the KeyVRM step asking for a migration an ``engine_loses_flow`` fault takes gets (see faults)."""


class Migration:
    """A Nova migration record and what the simulation needs to finish it."""

    __slots__ = ("id", "server_id", "migration_type", "status", "source_host", "dest_host",
                 "created_at", "updated_at", "error", "vcpus", "ram_mb", "claimed",
                 "will_fail", "stuck", "block", "was_running", "source_held", "superseded")

    def __init__(self, id, server_id, migration_type, source_host, dest_host, now, flavor):
        self.id = id
        self.server_id = server_id
        self.migration_type = migration_type
        self.status = "accepted"
        self.source_host = source_host
        self.dest_host = dest_host
        self.created_at = now
        self.updated_at = now
        self.error = None
        self.vcpus = flavor.vcpus
        self.ram_mb = flavor.ram_mb
        self.claimed = False
        self.will_fail = False
        self.stuck = False
        self.block = None
        self.was_running = False  # a cold migration: the server ran before it was powered off
        self.source_held = False  # a cold migration: the source's allocation until confirmed
        self.superseded = False  # Nova carries its evacuation on an older record: it stays accepted


def synchronized(method):
    """Run a driver method holding its region's lock (``self.region.lock``)."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.region.lock:
            return method(self, *args, **kwargs)
    return wrapper


class Region:
    """The whole simulated region; ``compute``, ``power`` and faults act on it."""

    def __init__(self, options: RegionOptions = RegionOptions(),
                 clock: Optional[SimClock] = None):
        self.options = options
        self.name = options.name
        self.clock = clock or SimClock(options.start_s)
        self.rng = random.Random(options.seed)
        self.availability_zones = []
        self.aggregates = {}
        self.hosts = {}
        self.vms = {}
        self.flavors = {}
        self.server_groups = {}
        self.images = {}  # id -> properties dict
        self.migrations = {}
        self.active_migrations = {}
        self.next_migration_id = 1
        self.nova_unavailable_until = -math.inf
        self.metrics_unavailable_until = -math.inf
        self.heartbeat_unavailable_until = -math.inf
        self.stuck_rules = []  # [hosts or None, remaining count]
        self.failing_rules = []  # [hosts or None, remaining count]: live migrations that end failed
        self.lost_flow_rules = []  # [hosts or None, remaining count]: accepted migrations whose engine flow is lost
        self.refusing_rules = []  # [hosts or None, remaining count]: targets Nova's scheduler refuses (NoValidHost)
        self.evacuation_watchers = []  # callables (step, server id, target host) told of each evacuation step
        self.ceph_unavailable_until = -math.inf
        self.blocklist = {}  # address -> expiry POSIX time or None
        self.inactive_bindings = set()  # (port_id, host)
        self.stale_attachments = {}  # attachment id -> (server_id, volume_id, host)
        self.faults_fired = []
        self.rebuilt_vms = []  # image-backed VMs an evacuation rebuilt from their image (local disk lost)
        # Held by drivers while they read or act and by a RealTimeRunner while it
        # advances the clock, so an embedded engine and API can share the region.
        self.lock = threading.RLock()

    @property
    def now(self) -> float:
        return self.clock.now

    # --- building ----------------------------------------------------------------
    def add_host(self, host: Host) -> Host:
        self.hosts[host.name] = host
        return host

    def add_vm(self, vm: VM) -> VM:
        """Place a new VM on its host, counting its allocation in Placement."""
        self.vms[vm.id] = vm
        host = self.hosts[vm.host]
        host.vms.append(vm)
        host.used_vcpus += vm.flavor.vcpus
        host.used_ram_mb += vm.flavor.ram_mb
        if vm.server_group_id:
            self.server_groups[vm.server_group_id].members.append(vm.id)
        return vm

    # --- periodic writers, computed on read -----------------------------------------
    def _last_tick(self, index, interval_s, frozen_s, resumed_s, writing) -> Optional[float]:
        if writing:
            phase = (index * 0.618034 % 1.0) * interval_s
            tick = self.now - ((self.now - phase) % interval_s)
            if tick >= resumed_s:
                return tick
        return frozen_s if frozen_s != -math.inf else None

    def last_heartbeat(self, host: Host) -> Optional[float]:
        """When the host's heartbeat agent last wrote (None if it never did)."""
        return self._last_tick(host.index, self.options.heartbeat_interval_s,
                               host.hb_frozen_s, host.hb_resumed_s, host.heartbeat_writing)

    def service_updated_at(self, host: Host) -> Optional[float]:
        """When the host's nova-compute last reported to Nova."""
        return self._last_tick(host.index, self.options.report_interval_s,
                               host.svc_frozen_s, host.svc_resumed_s, host.compute_reporting)

    def service_is_down(self, host: Host) -> bool:
        """Nova's view: forced down, or no report for longer than service_down_time."""
        if host.forced_down:
            return True
        updated = self.service_updated_at(host)
        return updated is None or self.now - updated > self.options.service_down_time_s

    def set_host_condition(self, host: Host, powered=None, partitioned=None,
                           compute_running=None, agent_running=None, exporter_running=None):
        """Change what runs on a host, freezing or resuming its periodic writers."""
        hb_before, svc_before = host.heartbeat_writing, host.compute_reporting
        last_hb, last_svc = self.last_heartbeat(host), self.service_updated_at(host)
        if powered is not None:
            host.powered = powered
        if partitioned is not None:
            host.partitioned = partitioned
        if compute_running is not None:
            host.compute_running = compute_running
        if agent_running is not None:
            host.agent_running = agent_running
        if exporter_running is not None:
            host.exporter_running = exporter_running
        if hb_before and not host.heartbeat_writing:
            host.hb_frozen_s = last_hb if last_hb is not None else -math.inf
        elif not hb_before and host.heartbeat_writing:
            host.hb_resumed_s = self.now
        if svc_before and not host.compute_reporting:
            host.svc_frozen_s = last_svc if last_svc is not None else -math.inf
        elif not svc_before and host.compute_reporting:
            host.svc_resumed_s = self.now

    def host_state(self, host: Host) -> str:
        """The region's own view of a host (one of ``HOST_STATES``)."""
        if not host.powered:
            return HOST_OFF
        if host.partitioned:
            return HOST_PARTITIONED
        if not host.compute_running or host.forced_down:
            return HOST_COMPUTE_DOWN
        if host.disabled:
            return HOST_DISABLED
        return HOST_UP

    def record_fault(self, kind: str, targets=()):
        """Note that a fault fired (for reports)."""
        self.faults_fired.append({"at_s": round(self.clock.elapsed_s, 3), "kind": kind,
                                  "targets": list(targets)})
