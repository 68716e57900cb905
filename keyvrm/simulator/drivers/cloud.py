"""The cloud driver over a simulated region: Nova/Placement/Neutron/Cinder semantics.

Reads return snapshot dataclasses built from the region's mutable model at call time
(flavors cached, since they never change). Every call raises Nova's 503 while a
scripted API outage lasts; an accepted migration an ``engine_loses_flow`` fault takes
raises ``EngineFlowLost`` to the KeyVRM step that asked for it. Hypervisors are read as the OpenStack driver reads them
(hypervisors API 2.87 + Placement traits): type, version, ``cpu_info``, the libvirt arch
traits; never the node's ``supported_instances``, and never a call to the host, so a
crashed host is listed like any other.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.drivers.cloud import base
from keyvrm.drivers.errors import CloudError
from keyvrm.drivers.errors import NotFoundInCloud
from keyvrm.model import snapshot as m
from keyvrm.simulator import cold_migration
from keyvrm.simulator import compute
from keyvrm.simulator import region as r


def _migration(rec: r.Migration) -> m.Migration:
    return m.Migration(id=rec.id, server_id=rec.server_id, migration_type=rec.migration_type,
                       status=rec.status, source_host=rec.source_host,
                       dest_host=rec.dest_host, created_at=rec.created_at,
                       updated_at=rec.updated_at)


# Guest architectures os-traits can name as COMPUTE_ARCH_* (libvirt's emulation traits).
_EMULATION_TRAIT_ARCHES = frozenset(("aarch64", "ppc64le", "mipsel", "s390x", "x86_64"))


def _api_capabilities(host: r.Host) -> dict:
    """What the hypervisors API (2.87) reports of the host's scheduler state: cpu_info only.

    Never ``supported_instances`` (no Nova API returns it): the simulated Nova keeps that
    to itself, as real Nova does (``Host.supported_instances``).
    """
    return {"cpu_info": {"arch": host.cpu_arch, "model": "host-model", "vendor": "sim",
                         "topology": {"sockets": 1, "cores": host.vcpus, "threads": 1}}}


def _placement_traits(host: r.Host) -> tuple:
    """The host's traits plus the arch traits libvirt reports to Placement (HW_ARCH_, COMPUTE_ARCH_)."""
    traits = list(host.traits)
    if host.hypervisor_type.lower() == "qemu":
        arch_traits = ["HW_ARCH_" + host.cpu_arch.upper()]
        if host.cpu_arch in _EMULATION_TRAIT_ARCHES:
            arch_traits.append("COMPUTE_ARCH_" + host.cpu_arch.upper())
        traits.extend(t for t in arch_traits if t not in traits)
    return tuple(traits)


class SimCloudDriver(base.CloudDriver):
    """``CloudDriver`` backed by a ``keyvrm.simulator.region.Region``."""

    def __init__(self, region: r.Region):
        self.region = region
        self.compute = compute.Compute(region)
        self._flavors = {}

    def _service(self, host: r.Host) -> m.ComputeService:
        down = self.region.service_is_down(host)
        return m.ComputeService(
            host=host.name, state=m.SERVICE_DOWN if down else m.SERVICE_UP,
            status=m.SERVICE_DISABLED if host.disabled else m.SERVICE_ENABLED,
            forced_down=host.forced_down, disabled_reason=host.disabled_reason,
            updated_at=self.region.service_updated_at(host))

    def _flavor(self, flavor: r.Flavor) -> m.Flavor:
        cached = self._flavors.get(flavor.name)
        if cached is None:
            cached = m.Flavor(flavor.name, flavor.vcpus, flavor.ram_mb, flavor.disk_gb,
                              dict(flavor.extra_specs))
            self._flavors[flavor.name] = cached
        return cached

    # --- reads ---------------------------------------------------------------------------
    @r.synchronized
    def list_availability_zones(self):
        self.compute.check_api()
        return [m.AvailabilityZone(name) for name in self.region.availability_zones]

    @r.synchronized
    def list_aggregates(self):
        self.compute.check_api()
        return [m.Aggregate(name=a.name, nova_id=a.nova_id, uuid=a.uuid,
                            availability_zone=a.az, metadata=dict(a.metadata),
                            hosts=tuple(a.hosts))
                for a in self.region.aggregates.values()]

    @r.synchronized
    def list_compute_services(self):
        self.compute.check_api()
        return [self._service(h) for h in self.region.hosts.values()]

    @r.synchronized
    def get_service(self, host):
        self.compute.check_api()
        if host not in self.region.hosts:
            raise NotFoundInCloud(f"Compute host {host} could not be found.")
        return self._service(self.region.hosts[host])

    @r.synchronized
    def list_hypervisors(self):
        self.compute.check_api()
        out = []
        for h in self.region.hosts.values():
            hugepages = ()
            if h.hugepages_total:
                hugepages = (m.HugePages(h.hugepage_size_kb, h.hugepages_total,
                                         h.hugepages_total - h.hugepages_used()),)
            out.append(m.Hypervisor(
                name=h.name, availability_zone=h.az, aggregates=tuple(h.aggregates),
                hugepages=hugepages, traits=_placement_traits(h), capabilities=_api_capabilities(h),
                hypervisor_type=h.hypervisor_type, hypervisor_version=h.hypervisor_version,
                net_capacity_mbps=h.net_capacity_mbps, host_ip=h.host_ip))
        return out

    @r.synchronized
    def list_inventories(self):
        self.compute.check_api()
        return {h.name: {
            m.VCPU: m.Inventory(total=h.vcpus, reserved=h.reserved_vcpus,
                                allocation_ratio=h.cpu_allocation_ratio, max_unit=h.vcpus,
                                used=h.used_vcpus),
            m.MEMORY_MB: m.Inventory(total=h.ram_mb, reserved=h.reserved_ram_mb,
                                     allocation_ratio=h.ram_allocation_ratio,
                                     max_unit=h.ram_mb, used=h.used_ram_mb),
        } for h in self.region.hosts.values()}

    @r.synchronized
    def list_servers(self):
        self.compute.check_api()
        return [self._server(v) for v in self.region.vms.values()]

    @r.synchronized
    def list_servers_on(self, host):
        self.compute.check_api()
        known = self.region.hosts.get(host)
        return [self._server(v) for v in known.vms] if known is not None else []

    @r.synchronized
    def get_server(self, server_id):
        self.compute.check_api()
        vm = self.region.vms.get(server_id)
        if vm is None:
            raise NotFoundInCloud(f"Instance {server_id} could not be found.")
        return self._server(vm)

    def _server(self, v):
        # Nova's API status of a server being rebuilt (an evacuation) is REBUILD, whatever its vm_state
        status = "REBUILD" if v.task_state == "rebuilding" else v.status
        return m.VM(id=v.id, name=v.name, host=v.host, project_id=v.project_id,
                    flavor=self._flavor(v.flavor), status=status, task_state=v.task_state,
                    image_id=v.image_id, server_group_id=v.server_group_id,
                    metadata=dict(v.metadata) if v.metadata else {},
                    volume_backed=v.volume_backed, vm_state=cold_migration.vm_state(v.status))

    @r.synchronized
    def list_server_groups(self):
        self.compute.check_api()
        return [m.ServerGroup(id=g.id, name=g.name, policy=g.policy, members=tuple(g.members),
                              rules=dict(g.rules), project_id=g.project_id)
                for g in self.region.server_groups.values()]

    @r.synchronized
    def list_images(self):
        self.compute.check_api()
        return [m.Image(id=i, properties=dict(p)) for i, p in self.region.images.items()]

    @r.synchronized
    def list_migrations(self, changes_since: Optional[float] = None):
        self.compute.check_api()
        return [_migration(rec) for rec in self.region.migrations.values()
                if changes_since is None or rec.updated_at >= changes_since]

    @r.synchronized
    def get_migration(self, migration_id, server_id=None):
        self.compute.check_api()
        rec = self.region.migrations.get(int(migration_id))
        if rec is None:
            raise NotFoundInCloud(f"Migration {migration_id} could not be found.")
        return _migration(rec)

    @r.synchronized
    def get_migration_fault(self, migration):
        """The fault the simulated Nova recorded when the migration failed (stripped, as the API's), or None."""
        self.compute.check_api()
        rec = self.region.migrations.get(int(migration.id))
        return (rec.error or "").strip() or None if rec is not None else None

    @r.synchronized
    def list_port_bindings(self, server_id):
        self.compute.check_api()
        vm = self.compute.find_server(server_id)
        port = compute.port_id(vm)
        bindings = [base.PortBinding(port, vm.host, "ACTIVE")]
        bindings += [base.PortBinding(p, h, "INACTIVE")
                     for p, h in sorted(self.region.inactive_bindings) if p == port]
        return bindings

    @r.synchronized
    def list_volume_attachments(self, server_id):
        self.compute.check_api()
        vm = self.compute.find_server(server_id)
        if not vm.volume_backed:
            return []
        vol = compute.volume_id(vm)
        out = [base.VolumeAttachment(f"att-{vm.id}", vm.id, vol, vm.host, "attached")]
        out += [base.VolumeAttachment(att, sid, v, host, "reserved")
                for att, (sid, v, host) in sorted(self.region.stale_attachments.items())
                if sid == vm.id]
        return out

    # --- actions -------------------------------------------------------------------------
    @r.synchronized
    def evacuate(self, server_id, target_host):
        migration = self.compute.evacuate(server_id, target_host)
        self.compute.lose_flow_of(migration)
        return _migration(migration)

    @r.synchronized
    def live_migrate(self, server_id, target_host, block_migration=base.BLOCK_MIGRATION_AUTO):
        migration = self.compute.live_migrate(server_id, target_host, block_migration)
        self.compute.lose_flow_of(migration)
        return _migration(migration)

    @r.synchronized
    def cold_migrate(self, server_id, target_host):
        migration = self.compute.cold_migrate(server_id, target_host)
        self.compute.lose_flow_of(migration)
        return _migration(migration)

    @r.synchronized
    def confirm_resize(self, server_id):
        self.compute.confirm_resize(server_id)

    @r.synchronized
    def force_down_service(self, host, forced_down=True):
        return self._service(self.compute.force_down(host, forced_down))

    @r.synchronized
    def disable_service(self, host, reason):
        return self._service(self.compute.disable(host, reason))

    @r.synchronized
    def enable_service(self, host):
        return self._service(self.compute.enable(host))

    @r.synchronized
    def stop_server(self, server_id):
        self.compute.stop_server(server_id)

    @r.synchronized
    def start_server(self, server_id):
        self.compute.check_api()
        vm = self.compute.find_server(server_id)
        if vm.status == r.ACTIVE:
            raise CloudError(409, f"Cannot 'start' instance {vm.id} while it is in vm_state "
                                  f"active", "vm_state")
        if vm.task_state is not None:
            raise CloudError(409, f"Cannot 'start' instance {vm.id} while it is in "
                                  f"task_state {vm.task_state}", "task_state")
        vm.task_state = "powering-on"
        # A power action takes as long as a stop does.
        self.region.clock.call_later(self.region.options.stop_delay_s, self._started, vm)

    def _started(self, vm):
        if self.region.hosts[vm.host].compute_reporting:
            vm.status = r.ACTIVE
            vm.running = True
            vm.task_state = None
        # Otherwise the cast is lost and the server stays in powering-on, as in Nova.

    @r.synchronized
    def delete_port_binding(self, port_id, host):
        self.compute.delete_port_binding(port_id, host)

    @r.synchronized
    def delete_volume_attachment(self, attachment_id):
        self.compute.delete_volume_attachment(attachment_id)
