"""Nova-like actions on the simulated region: evacuate, live-migrate, cold-migrate, services, stop.

The API part of each call checks what Nova's API checks and raises ``CloudError`` with
Nova's status and message; accepted work becomes a migration record whose later steps
run on the simulated clock. At execution the target is re-checked (service up and
enabled, Placement capacity, HugePages, the image's architecture/hypervisor type/VM mode
against the node's ``supported_instances`` as Nova's ImagePropertiesFilter does,
server-group policy, leftover port bindings or volume attachments): a violation ends the
migration in status ``error`` and the server stays where it was. A server's host changes
only when its migration completes.

A target Nova's scheduler refuses ends the migration as Nova 34 ends it: the API had
accepted the request; the record goes ``error`` with Nova's own fault message, "No valid
host was found. " (Placement offered no candidate: no room, or the provider carries
``COMPUTE_STATUS_DISABLED``) or "No valid host was found. There are not enough hosts
available." (a filter refused it), which names neither the host nor the filter. An
evacuation so refused leaves the server ERROR (the conductor sets it); a live migration
leaves it as it was. An ERROR server that is evacuated later is rebuilt ACTIVE: Nova
ignores 2.95's stopped target state for it. Fault ``scheduler_refuses`` makes the
scheduler refuse targets that pass every check here, as Nova's does while a restored
host's provider still carries ``COMPUTE_STATUS_DISABLED``.

Migration statuses: evacuation ``accepted`` -> ``pre-migrating`` -> ``done`` | ``error``
| ``failed``; live migration ``accepted`` -> ``preparing`` -> ``running`` ->
``completed`` | ``error`` | ``failed``; cold migration (``keyvrm.simulator.cold_migration``)
``pre-migrating`` -> ``migrating`` -> ``post-migrating`` -> ``finished`` -> (confirmResize)
``confirming`` -> ``confirmed``, or ``error``.

A target whose nova-compute is dead (its host lost power, or the process stopped) while
Nova still counts its service up writes nothing, as in Nova: the conductor's rebuild cast
to it is lost (the evacuation stays ``accepted``, the server in task_state
``rebuilding``), and a rebuild it was running stays ``pre-migrating``. Nova's evacuate API
checks the vm_state only, so the server can be evacuated again; the conductor then
carries the new evacuation on the server's oldest ``accepted`` evacuation record (Nova's
``Migration.get_by_instance_and_status``), which takes the new target, and the new record
stays ``accepted`` for ever (``superseded``). ``evacuation_watchers`` (callables of
(step, server id, target host), see ``keyvrm.simulator.faults``) are told of each step:
``before_accept``, ``accepted``, ``rebuilding``, ``done``.
"""

from __future__ import annotations

import math

from keyvrm.drivers.errors import CloudError
from keyvrm.drivers.errors import NotFoundInCloud
from keyvrm.model.snapshot import AFFINITY
from keyvrm.model.snapshot import ANTI_AFFINITY
from keyvrm.simulator import cold_migration
from keyvrm.simulator import region as r

EVACUATION = "evacuation"
LIVE_MIGRATION = "live-migration"
COLD_MIGRATION = cold_migration.COLD_MIGRATION
FINAL_STATUSES = frozenset(("done", "completed", "confirmed", "error", "failed", "cancelled"))
_EVACUABLE = (r.ACTIVE, r.SHUTOFF, r.ERROR, "STOPPED")
# Image properties Nova's ImagePropertiesFilter compares (current name, legacy name), and
# the aliases nova.objects.fields canonicalises.
_IMAGE_COMPONENTS = (("hw_architecture", "architecture"), ("img_hv_type", "hypervisor_type"),
                     ("hw_vm_mode", "vm_mode"))
# Nova's fault messages of a refused target (NoValidHost with its two reasons).
NO_CANDIDATES = "No valid host was found. "
NOT_ENOUGH_HOSTS = "No valid host was found. There are not enough hosts available."
_ALIASES = {"i386": "i686", "i486": "i686", "i586": "i686", "amd64": "x86_64", "xapi": "xen",
            "pv": "xen", "hv": "hvm"}


def image_requirement(properties: dict) -> tuple:
    """(arch, hv type, vm mode) an image asks for, canonicalised like Nova; None = any."""
    out = []
    for current, legacy in _IMAGE_COMPONENTS:
        value = properties.get(current) or properties.get(legacy)
        out.append(_ALIASES.get(str(value).lower(), str(value).lower()) if value else None)
    return tuple(out)


def port_id(vm) -> str:
    """The id of a server's (single) port."""
    return f"port-{vm.id}"


def volume_id(vm) -> str:
    """The id of a volume-backed server's root volume."""
    return f"vol-{vm.id}"


class Compute(cold_migration.ColdMigration):
    """Nova's compute API over one region."""

    def __init__(self, region: r.Region):
        self.region = region

    # --- API availability ----------------------------------------------------------
    def check_api(self):
        """Raise Nova's 503 while a scripted API outage lasts."""
        if self.region.now < self.region.nova_unavailable_until:
            raise CloudError(503, "Service Unavailable: the server is currently unable to "
                                  "handle the request", "service_unavailable")

    def find_server(self, server_id) -> r.VM:
        """The server ``server_id``; Nova's 404 if there is none."""
        vm = self.region.vms.get(server_id)
        if vm is None:
            raise NotFoundInCloud(f"Instance {server_id} could not be found.")
        return vm

    def find_host(self, name) -> r.Host:
        """The compute host ``name``; Nova's 404 if there is none."""
        host = self.region.hosts.get(name)
        if host is None:
            raise NotFoundInCloud(f"Compute host {name} could not be found.")
        return host

    def server_for(self, action: str, server_id: str, allowed_statuses, task_checked=True) -> r.VM:
        """The server ``server_id`` if Nova lets ``action`` start on it (no task, an allowed status); else a 409.

        ``task_checked`` False: Nova's API checks the vm_state only (evacuate).
        """
        vm = self.find_server(server_id)
        if task_checked and vm.task_state is not None:
            raise CloudError(409, f"Cannot '{action}' instance {vm.id} while it is in task_state "
                                  f"{vm.task_state}", "task_state")
        if vm.status not in allowed_statuses:
            raise CloudError(409, f"Cannot '{action}' instance {vm.id} while it is in vm_state "
                                  f"{cold_migration.vm_state(vm.status)}", "vm_state")
        return vm

    # --- evacuate --------------------------------------------------------------------
    def evacuate(self, server_id: str, target_host: str) -> r.Migration:
        """Accept an evacuation, refused unless the source compute service is down.

        As Nova's API: the vm_state is checked, not the task_state (a task a dead host
        left does not stop an evacuation).
        """
        self.check_api()
        vm = self.server_for("evacuate", server_id, _EVACUABLE, task_checked=False)
        source = self.region.hosts[vm.host]
        if not self.region.service_is_down(source):
            raise CloudError(400, f"Compute service of {source.name} is still in use.",
                             "service_in_use")
        target = self.find_host(target_host)
        if target is source:
            raise CloudError(400, "The target host can't be the same one.", "same_host")
        self._tell("before_accept", vm.id, target.name)
        migration = self._new_migration(vm, EVACUATION, source, target)
        vm.task_state = "rebuilding"
        self._tell("accepted", vm.id, target.name)
        self._later(self.region.options.scheduling_delay_s, self._evacuation_scheduled,
                    migration)
        return migration

    def _carrier(self, migration):
        """The record Nova's conductor carries this evacuation on: the server's oldest ``accepted`` one."""
        accepted = [m for m in self.region.active_migrations.values()
                    if m.server_id == migration.server_id and m.migration_type == EVACUATION
                    and m.status == "accepted" and not m.superseded]
        carrier = min(accepted, key=lambda m: m.id, default=migration)
        if carrier is not migration:
            carrier.dest_host = migration.dest_host
            migration.superseded = True
        return carrier

    def _evacuation_scheduled(self, migration):
        migration = self._carrier(migration)
        vm = self.region.vms[migration.server_id]
        target = self.region.hosts[migration.dest_host]
        refused = self._target_rejection(vm, target, migration)
        if refused:
            vm.status = r.ERROR  # the conductor's answer to NoValidHost on a rebuild
            self._finish(migration, "error", refused)
            return
        reason = self._stale_attachment(vm)
        if reason:
            self._finish(migration, "error", reason)
            return
        if not target.compute_reporting:
            return  # the rebuild cast reaches no nova-compute: lost, the record stays accepted
        self._claim(migration, target)
        self._set_status(migration, "pre-migrating")
        self._tell("rebuilding", vm.id, target.name)
        if self._becomes_stuck(migration):
            return
        duration = self._jitter(self.region.options.evacuation_s)
        self._later(duration, self._evacuation_done, migration)

    def _evacuation_done(self, migration):
        vm = self.region.vms[migration.server_id]
        target = self.region.hosts[migration.dest_host]
        if not target.compute_reporting:
            # nova-compute died mid-rebuild: nothing is written, the record stays pre-migrating
            if vm.volume_backed:
                att = f"att-{vm.id}-{migration.id}"
                self.region.stale_attachments[att] = (vm.id, volume_id(vm), target.name)
            return
        source = self.region.hosts[vm.host]
        source.vms.remove(vm)
        # The source keeps its allocation until its compute service starts again.
        source.orphan_vcpus += vm.flavor.vcpus
        source.orphan_ram_mb += vm.flavor.ram_mb
        target.vms.append(vm)
        migration.claimed = False
        vm.host = target.name
        if not vm.volume_backed and self.region.options.instance_storage == r.STORAGE_LOCAL:
            # Nova found no shared instance storage: the disk was rebuilt from the image
            self.region.rebuilt_vms.append(vm.id)
        if vm.status == r.ERROR:
            vm.status = r.ACTIVE  # Nova rebuilds an ERROR server ACTIVE, whatever the target state
        elif self.region.options.evacuate_to_shutoff or vm.status != r.ACTIVE:
            vm.status = r.SHUTOFF
        vm.running = vm.status == r.ACTIVE
        self._finish(migration, "done")
        self._tell("done", vm.id, target.name)

    def _stale_attachment(self, vm):
        if not vm.volume_backed:
            return None
        for att, (server_id, vol, host) in self.region.stale_attachments.items():
            if server_id == vm.id:
                return (f"Invalid volume: volume {vol} is still attached to host {host} "
                        f"(attachment {att})")
        return None

    # --- live migration ----------------------------------------------------------------
    def live_migrate(self, server_id: str, target_host: str,
                     block_migration="auto") -> r.Migration:
        """Accept a live migration between two hosts whose source service is up."""
        self.check_api()
        if block_migration not in ("auto", True, False):
            raise CloudError(400, f"Invalid input for field/attribute block_migration. "
                                  f"Value: {block_migration}.", "bad_request")
        vm = self.server_for("os-migrateLive", server_id, (r.ACTIVE, "PAUSED"))
        source = self.region.hosts[vm.host]
        if self.region.service_is_down(source):
            raise CloudError(400, f"Compute service of {source.name} is unavailable at "
                                  f"this time.", "service_unavailable")
        target = self.find_host(target_host)
        if target is source:
            raise CloudError(400, "The target host can't be the same one.", "same_host")
        migration = self._new_migration(vm, LIVE_MIGRATION, source, target)
        migration.block = block_migration
        vm.task_state = "migrating"
        self._later(self.region.options.scheduling_delay_s, self._live_precheck, migration)
        return migration

    def _live_precheck(self, migration):
        vm = self.region.vms[migration.server_id]
        target = self.region.hosts[migration.dest_host]
        reason = self._target_rejection(vm, target, migration)
        if reason is None and not target.reachable:
            reason = f"Migration pre-check error: Unable to contact {target.name}"
        if reason is None and (port_id(vm), target.name) in self.region.inactive_bindings:
            reason = (f"Binding for port {port_id(vm)} for host {target.name} already "
                      f"exists.")
        if reason is None and migration.block is False and not vm.volume_backed:
            reason = (f"Migration pre-check error: {vm.id} is not on shared storage: "
                      f"Shared storage live-migration requires either shared storage or "
                      f"boot-from-volume with no local disks.")
        rate = self.region.options.migration_failure_rate
        draw = self.region.rng.random() if rate > 0 else 1.0
        if reason is None and draw < rate / 2:
            reason = "Migration pre-check error: libvirt refused the migration"
        if reason:
            self._finish(migration, "error", reason)
            return
        migration.will_fail = draw < rate
        self._claim(migration, target)
        self._set_status(migration, "preparing")
        self._later(self.region.options.scheduling_delay_s, self._live_running, migration)

    def _live_running(self, migration):
        vm = self.region.vms[migration.server_id]
        self._set_status(migration, "running")
        if self._becomes_stuck(migration):
            return
        self._later(self.live_migration_duration_s(vm), self._live_done, migration)

    def live_migration_duration_s(self, vm) -> float:
        """Copy time of RAM (plus disk if local) at the link rate, stretched by dirtying."""
        opts = self.region.options
        bandwidth = opts.migration_bandwidth_mbps
        copy_s = vm.flavor.ram_mb * 8.0 / bandwidth
        dirty = vm.dirty_mbps if vm.running else 0.0
        ratio = min(dirty / bandwidth, 0.9)
        copy_s /= (1.0 - ratio)
        if not vm.volume_backed:
            copy_s += vm.flavor.disk_gb * 8192.0 / bandwidth
        return self._jitter(opts.migration_base_s + copy_s)

    def _live_done(self, migration):
        vm = self.region.vms[migration.server_id]
        source = self.region.hosts[vm.host]
        target = self.region.hosts[migration.dest_host]
        if self._takes_rule(self.region.failing_rules, migration):
            # a generic failure: libvirt aborts, Nova rolls back and removes the target's binding
            self._finish(migration, "failed", "Live migration failed: libvirt error: operation failed: "
                                              "migration job: unexpectedly failed")
            return
        if migration.will_fail or not (source.reachable and target.reachable):
            self.region.inactive_bindings.add((port_id(vm), target.name))
            self._finish(migration, "failed", "Live migration failed: the connection to "
                                              f"{target.name} was lost")
            return
        source.vms.remove(vm)
        source.used_vcpus -= vm.flavor.vcpus
        source.used_ram_mb -= vm.flavor.ram_mb
        target.vms.append(vm)
        migration.claimed = False
        vm.host = target.name
        self._finish(migration, "completed")

    # --- target checks ------------------------------------------------------------------
    def _target_rejection(self, vm, target, migration) -> str | None:
        """Nova's fault message if its scheduler would refuse ``target`` now, else None."""
        if target.disabled or self._takes_rule(self.region.refusing_rules, migration, dest_only=True):
            return NO_CANDIDATES  # Placement: the provider carries COMPUTE_STATUS_DISABLED
        flavor = vm.flavor
        if target.used_vcpus + flavor.vcpus > target.vcpu_capacity \
                or target.used_ram_mb + flavor.ram_mb > target.ram_capacity_mb:
            return NO_CANDIDATES  # Placement: no room for the flavor's VCPU or MEMORY_MB
        if self.region.service_is_down(target):
            return NOT_ENOUGH_HOSTS  # ComputeFilter
        if flavor.hugepage_size_kb:
            if target.hugepage_size_kb != flavor.hugepage_size_kb:
                return NOT_ENOUGH_HOSTS  # NUMATopologyFilter: no HugePages of the flavor's size
            pages = flavor.ram_mb * 1024 // target.hugepage_size_kb
            if target.hugepages_used() + self._inbound_pages(target) + pages > \
                    target.hugepages_total:
                return NOT_ENOUGH_HOSTS  # NUMATopologyFilter: not enough free HugePages
        wanted = image_requirement(self.region.images.get(vm.image_id) or {})
        if any(wanted) and not any(all(w is None or w == s for w, s in zip(wanted, triple))
                                   for triple in target.supported_instances()):
            return NOT_ENOUGH_HOSTS  # ImagePropertiesFilter
        return NOT_ENOUGH_HOSTS if self._group_refuses(vm, target) else None

    def _inbound_pages(self, target):
        pages = 0
        for m in self.region.active_migrations.values():
            if m.claimed and m.dest_host == target.name:
                vm = self.region.vms[m.server_id]
                if vm.flavor.hugepage_size_kb:
                    pages += vm.flavor.ram_mb * 1024 // target.hugepage_size_kb
        return pages

    def _group_refuses(self, vm, target) -> bool:
        """Whether Nova's ServerGroup(Anti)AffinityFilter refuses ``target`` for ``vm``."""
        if not vm.server_group_id:
            return False
        group = self.region.server_groups[vm.server_group_id]
        hosts = []
        for member_id in group.members:
            if member_id == vm.id:
                continue
            member = self.region.vms.get(member_id)
            if member is not None:
                hosts.append(member.host)
        for m in self.region.active_migrations.values():
            if m.claimed and m.server_id != vm.id and m.server_id in group.members:
                hosts.append(m.dest_host)
        if group.policy == ANTI_AFFINITY:
            limit = int(group.rules.get("max_server_per_host", 1))
            return hosts.count(target.name) >= limit
        if group.policy == AFFINITY:  # Nova counts every member's host, the VM's own too
            return any(h != target.name for h in hosts + [vm.host])
        return False

    # --- migration record bookkeeping -----------------------------------------------------
    def _new_migration(self, vm, kind, source, target):
        region = self.region
        migration = r.Migration(region.next_migration_id, vm.id, kind, source.name,
                                target.name, region.now, vm.flavor)
        region.next_migration_id += 1
        region.migrations[migration.id] = migration
        region.active_migrations[migration.id] = migration
        return migration

    def _claim(self, migration, target):
        target.used_vcpus += migration.vcpus
        target.used_ram_mb += migration.ram_mb
        migration.claimed = True

    def _tell(self, step, server_id, target_name):
        for watcher in list(self.region.evacuation_watchers):
            watcher(step, server_id, target_name)

    def can_progress(self, migration) -> bool:
        """Whether an unfinished migration may still end.

        A superseded record never does, nor one whose target's nova-compute (or, live,
        either end's) is dead.
        """
        if migration.superseded or not self.region.hosts[migration.dest_host].compute_reporting:
            return False
        return migration.migration_type != LIVE_MIGRATION or \
            self.region.hosts[migration.source_host].compute_reporting

    def _becomes_stuck(self, migration) -> bool:
        migration.stuck = self._takes_rule(self.region.stuck_rules, migration)
        return migration.stuck

    def lose_flow_of(self, migration: r.Migration) -> None:
        """Raise ``EngineFlowLost`` to the caller when an ``engine_loses_flow`` fault takes this accepted migration."""
        if self._takes_rule(self.region.lost_flow_rules, migration):
            self.region.record_fault("engine_flow_lost", [migration.server_id])
            raise r.EngineFlowLost("the engine lost the flow that asked for migration %s of VM %s "
                                   "(engine_loses_flow)" % (migration.id, migration.server_id))

    @staticmethod
    def _takes_rule(rules, migration, dest_only=False) -> bool:
        """Whether one of ``rules`` ([hosts or None, remaining]) applies to ``migration``; counts it down.

        A rule with hosts applies to a migration from or to one of them (only to, with ``dest_only``).
        """
        for rule in rules:
            hosts, remaining = rule
            if remaining <= 0:
                continue
            if hosts is None or migration.dest_host in hosts or (
                    not dest_only and migration.source_host in hosts):
                rule[1] -= 1
                return True
        return False

    def _set_status(self, migration, status):
        migration.status = status
        migration.updated_at = self.region.now

    def _finish(self, migration, status, error=None):
        if migration.claimed:
            target = self.region.hosts[migration.dest_host]
            target.used_vcpus -= migration.vcpus
            target.used_ram_mb -= migration.ram_mb
            migration.claimed = False
        migration.error = error
        self._set_status(migration, status)
        self.region.active_migrations.pop(migration.id, None)
        vm = self.region.vms.get(migration.server_id)
        if vm is not None:
            vm.task_state = None

    def _jitter(self, mean_s) -> float:
        return mean_s * math.exp(self.region.rng.gauss(0.0, 0.2) - 0.02)

    def _later(self, delay_s, callback, *args):
        self.region.clock.call_later(delay_s, callback, *args)

    # --- services and servers ----------------------------------------------------------------
    def force_down(self, host_name: str, forced_down: bool = True) -> r.Host:
        """Set the service's forced_down flag (Nova microversion >= 2.53)."""
        self.check_api()
        host = self.find_host(host_name)
        host.forced_down = bool(forced_down)
        return host

    def disable(self, host_name: str, reason: str) -> r.Host:
        """Disable the host's compute service with ``reason``."""
        self.check_api()
        host = self.find_host(host_name)
        host.disabled = True
        host.disabled_reason = reason
        return host

    def enable(self, host_name: str) -> r.Host:
        """Enable the host's compute service (clears the reason)."""
        self.check_api()
        host = self.find_host(host_name)
        host.disabled = False
        host.disabled_reason = None
        return host

    def stop_server(self, server_id: str) -> None:
        """Accept a stop; only a host whose nova-compute gets the cast carries it out."""
        self.check_api()
        vm = self.find_server(server_id)
        if vm.status == r.SHUTOFF:
            raise CloudError(409, f"Cannot 'stop' instance {vm.id} while it is in vm_state "
                                  f"stopped", "vm_state")
        if vm.task_state is not None:
            raise CloudError(409, f"Cannot 'stop' instance {vm.id} while it is in "
                                  f"task_state {vm.task_state}", "task_state")
        vm.task_state = "powering-off"
        self._later(self.region.options.stop_delay_s, self._stopped, vm)

    def _stopped(self, vm):
        host = self.region.hosts[vm.host]
        if host.compute_reporting:
            vm.status = r.SHUTOFF
            vm.running = False
            vm.task_state = None
        # Otherwise the cast is lost and the server stays in powering-off, as in Nova.

    def delete_port_binding(self, port: str, host: str) -> None:
        """Delete an inactive port binding (Neutron answers 404 if there is none)."""
        self.check_api()
        if (port, host) not in self.region.inactive_bindings:
            raise NotFoundInCloud(f"Binding for port {port} on host {host} could not be "
                                  f"found.")
        self.region.inactive_bindings.discard((port, host))

    def delete_volume_attachment(self, attachment_id: str) -> None:
        """Delete a stale attachment (Cinder answers 404 if unknown)."""
        self.check_api()
        if self.region.stale_attachments.pop(attachment_id, None) is None:
            raise NotFoundInCloud(f"Volume attachment {attachment_id} could not be found.")
