"""The region snapshot: what KeyVRM knows of a region at the start of one cycle.

Frozen records, units in field names. A planner reads only these. Mapping fields
(``metadata``, ``extra_specs``, ...) are plain dicts for speed; treat them as read-only.
Times are POSIX seconds (float). A metric that the TSDB did not return is ``None``
("missing"), never 0.

The records are ``msgspec.Struct`` types (frozen, positional on the wire, not tracked by
the garbage collector): a 200,000-VM region decodes in a fraction of a second and costs
no collector time (``keyvrm.model.codec``). Their annotations are exact, because the
codec decodes by them. ``replace`` makes a changed copy, as ``dataclasses.replace`` did.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import msgspec

# Resource classes as Placement names them.
VCPU = "VCPU"
MEMORY_MB = "MEMORY_MB"
DISK_GB = "DISK_GB"

# Compute service states and statuses as Nova reports them.
SERVICE_UP = "up"
SERVICE_DOWN = "down"
SERVICE_ENABLED = "enabled"
SERVICE_DISABLED = "disabled"

# Server group policies (Nova microversion >= 2.64 names).
AFFINITY = "affinity"
ANTI_AFFINITY = "anti-affinity"
SOFT_AFFINITY = "soft-affinity"
SOFT_ANTI_AFFINITY = "soft-anti-affinity"
SERVER_GROUP_POLICIES = (AFFINITY, ANTI_AFFINITY, SOFT_AFFINITY, SOFT_ANTI_AFFINITY)

# Every record: frozen, encoded as a positional array, never part of a reference cycle.
_RECORD = dict(frozen=True, array_like=True, gc=False)


def replace(record, **changes):
    """A copy of the snapshot record ``record`` with ``changes`` applied."""
    return msgspec.structs.replace(record, **changes)


def fields(record_type) -> tuple:
    """The field names of a snapshot record type, in their positional order."""
    return record_type.__struct_fields__


# Names of the snapshot's sources (keys of ``RegionSnapshot.sources``).
SOURCE_NOVA = "nova"
SOURCE_PLACEMENT = "placement"
SOURCE_GLANCE = "glance"
SOURCE_METRICS = "metrics"
SOURCE_HEARTBEAT = "heartbeat"
SOURCES = (SOURCE_NOVA, SOURCE_PLACEMENT, SOURCE_GLANCE, SOURCE_METRICS, SOURCE_HEARTBEAT)


class SourceStatus(msgspec.Struct, **_RECORD):
    """Whether one source answered this cycle, and if not, why."""

    name: str
    ok: bool
    error: Optional[str] = None
    duration_s: float = 0.0
    requests: int = 0


class AvailabilityZone(msgspec.Struct, **_RECORD):
    name: str


class Aggregate(msgspec.Struct, **_RECORD):
    """A Nova host aggregate; ``name`` is the key KeyVRM's per-aggregate config uses."""

    name: str
    nova_id: int
    uuid: Optional[str] = None
    availability_zone: Optional[str] = None
    metadata: dict = {}
    hosts: tuple[str, ...] = ()


class ComputeService(msgspec.Struct, **_RECORD):
    """The nova-compute service of one host."""

    host: str
    state: str = SERVICE_UP
    status: str = SERVICE_ENABLED
    forced_down: bool = False
    disabled_reason: Optional[str] = None
    updated_at: Optional[float] = None

    @property
    def is_up(self) -> bool:
        """Nova would schedule to / live-migrate with this service."""
        return self.state == SERVICE_UP and not self.forced_down

    @property
    def is_enabled(self) -> bool:
        return self.status == SERVICE_ENABLED


class Inventory(msgspec.Struct, **_RECORD):
    """One resource class of one resource provider, with Placement's semantics."""

    total: int
    reserved: int = 0
    allocation_ratio: float = 1.0
    max_unit: Optional[int] = None
    used: int = 0
    min_unit: int = 1
    step_size: int = 1

    @property
    def capacity(self) -> float:
        """(total - reserved) x allocation_ratio, as Placement computes it."""
        return (self.total - self.reserved) * self.allocation_ratio

    @property
    def free(self) -> float:
        return self.capacity - self.used


class HugePages(msgspec.Struct, **_RECORD):
    """HugePages of one page size on a hypervisor."""

    page_size_kb: int
    total_pages: int
    free_pages: int


class HostMetrics(msgspec.Struct, **_RECORD):
    """Hypervisor load over the metrics window, in % of its capacity; None = missing."""

    cpu_pct: Optional[float] = None
    ram_pct: Optional[float] = None
    net_pct: Optional[float] = None
    hugepages_pct: Optional[float] = None
    down_interfaces: tuple[str, ...] = ()
    interfaces_known: bool = False


class VMMetrics(msgspec.Struct, **_RECORD):
    """One VM's load: vCPUs busy, RAM used (MB), network (Mbit/s); None = missing."""

    cpu_cores: Optional[float] = None
    ram_mb: Optional[float] = None
    net_mbps: Optional[float] = None


class Hypervisor(msgspec.Struct, **_RECORD):
    """One compute host as Nova, Placement, the TSDB and the heartbeat store see it.

    ``hugepages``: the host's HugePages pools; ``()`` = it has none, ``None`` = no source
    reports them (no Nova or Placement API does). ``capabilities``: the attributes of
    Nova's scheduler host state that an API reports, keyed as Nova's
    ComputeCapabilitiesFilter names them; the OpenStack driver fills ``cpu_info`` (the
    hypervisors API's dict: ``arch``, ``model``, ``vendor``, ``topology``, ``features``...).
    ``hypervisor_type`` is the hypervisors API's text ("QEMU" for libvirt KVM and QEMU
    hosts, "fake" for Nova's fake driver). ``power``: what the host's BMC said when it
    was asked ("on", "off", or "unreachable"); None = not asked (only hosts whose
    heartbeat is stale are, and only with BMC fencing on: ``keyvrm.harvest.power``).
    ``target_up``: whether the TSDB scrapes the host's exporter now; None = not known.
    """

    name: str
    availability_zone: Optional[str] = None
    aggregates: tuple[str, ...] = ()
    service: Optional[ComputeService] = None
    inventories: dict[str, Inventory] = {}  # resource class -> Inventory
    hugepages: Optional[tuple[HugePages, ...]] = ()  # of HugePages; None = not reported
    traits: tuple[str, ...] = ()
    capabilities: dict = {}  # e.g. {"cpu_info": {...}}
    hypervisor_type: str = "QEMU"
    hypervisor_version: int = 0
    net_capacity_mbps: Optional[float] = None
    host_ip: Optional[str] = None
    metrics: Optional[HostMetrics] = None
    heartbeat_at: Optional[float] = None
    power: Optional[str] = None
    target_up: Optional[bool] = None

    @property
    def cpu_arch(self) -> Optional[str]:
        """The host CPU's architecture as Nova reports it (``cpu_info["arch"]``); None if not."""
        cpu_info = self.capabilities.get("cpu_info")
        arch = cpu_info.get("arch") if isinstance(cpu_info, dict) else None
        return arch or None


class Flavor(msgspec.Struct, **_RECORD):
    name: str
    vcpus: int
    ram_mb: int
    disk_gb: int = 0
    extra_specs: dict = {}


class VM(msgspec.Struct, **_RECORD):
    """One server. ``no_evac``/``no_migr``/``evacuate_order`` come from its metadata keys."""

    id: str
    name: str
    host: Optional[str]
    project_id: str
    flavor: Flavor
    status: str = "ACTIVE"
    task_state: Optional[str] = None
    image_id: Optional[str] = None
    server_group_id: Optional[str] = None
    metadata: dict = {}
    volume_backed: bool = False
    no_evac: bool = False
    no_migr: bool = False
    evacuate_order: Optional[int] = None
    metrics: Optional[VMMetrics] = None
    scheduler_hints: dict = {}  # e.g. {"same_host": [...]}
    vm_state: Optional[str] = None  # Nova's vm_state (active, stopped, error...): what a task's status hides

    @property
    def image_backed(self) -> bool:
        """The root disk is an ephemeral disk made from an image, not a volume.

        Where it lives (the hypervisor's local disk, or shared storage such as Ceph RBD) is
        the aggregate's storage mode, declared by the operator: see ``planning.storage``.
        """
        return not self.volume_backed


class ServerGroup(msgspec.Struct, **_RECORD):
    id: str
    name: str
    policy: str
    members: tuple[str, ...] = ()
    rules: dict = {}  # e.g. {"max_server_per_host": 2}
    project_id: Optional[str] = None


class Image(msgspec.Struct, **_RECORD):
    id: str
    properties: dict = {}


class Migration(msgspec.Struct, **_RECORD):
    """A Nova migration record (evacuation or live migration) still of interest."""

    id: int
    server_id: str
    migration_type: str
    status: str
    source_host: Optional[str] = None
    dest_host: Optional[str] = None
    created_at: Optional[float] = None
    updated_at: Optional[float] = None


class RegionSnapshot(msgspec.Struct, **_RECORD):
    """Everything one cycle decides from. Built once by the harvester, then only read."""

    region: str
    taken_at: float
    availability_zones: tuple[AvailabilityZone, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()
    hypervisors: tuple[Hypervisor, ...] = ()
    vms: tuple[VM, ...] = ()
    server_groups: tuple[ServerGroup, ...] = ()
    images: tuple[Image, ...] = ()
    migrations: tuple[Migration, ...] = ()
    sources: dict[str, SourceStatus] = {}  # name -> SourceStatus
    metrics_window_s: float = 300.0

    def source_ok(self, name: str) -> bool:
        """The named source answered this cycle (an absent source counts as failed)."""
        status = self.sources.get(name)
        return bool(status and status.ok)

    def index(self) -> "SnapshotIndex":
        """Lookup tables over this snapshot (built on each call; keep the result)."""
        return SnapshotIndex(self)


class SnapshotIndex:
    """Dict lookups over a snapshot: by name/id, VMs per host, hosts per aggregate."""

    def __init__(self, snapshot: RegionSnapshot):
        self.snapshot = snapshot
        self.hypervisors = {h.name: h for h in snapshot.hypervisors}
        self.aggregates = {a.name: a for a in snapshot.aggregates}
        self.vms = {v.id: v for v in snapshot.vms}
        self.server_groups = {g.id: g for g in snapshot.server_groups}
        self.images = {i.id: i for i in snapshot.images}
        vms_by_host: dict = {}
        for vm in snapshot.vms:
            vms_by_host.setdefault(vm.host, []).append(vm)
        self.vms_by_host = vms_by_host

    def vms_on(self, host: str) -> list:
        """VMs the snapshot places on ``host``."""
        return self.vms_by_host.get(host, [])

    def hypervisors_of(self, aggregate: str) -> list:
        """Hypervisors of one aggregate that the snapshot knows, in aggregate order."""
        agg = self.aggregates.get(aggregate)
        if agg is None:
            return []
        return [self.hypervisors[h] for h in agg.hosts if h in self.hypervisors]


@dataclasses.dataclass(frozen=True, slots=True)
class BusySet:
    """Hosts and VMs an unfinished recommendation touches: never planned on again."""

    hosts: frozenset = frozenset()
    vms: frozenset = frozenset()
