"""Nova's cold migration on the simulated region: ``migrate`` to a named host, then ``confirmResize``.

As Nova 34 does it (``POST /servers/{id}/action {"migrate": {"host": ...}}`` from 2.56,
checked against the fake cloud's real Nova):

- the API accepts an ACTIVE or SHUTOFF server with no task (409 naming the vm_state or
  task_state otherwise), whose source compute service is up (409 "Service is unavailable
  at this time."), to a known host (400) other than its own (400); it answers 202 with no
  body, and the migration record (type ``migration``) is ``pre-migrating``;
- the scheduler checks the named host as for any move (service, capacity, HugePages,
  image properties, server groups): a refusal ends the record ``error`` and the server
  stays as it was;
- else the target's resources are claimed, the record is ``migrating`` while the server
  is powered off and its disk copied (``resize_migrating``), ``post-migrating`` once it
  is on the target (its host changes there), then ``finished``: the server is
  VERIFY_RESIZE on the target, running again if it ran before, and the source keeps its
  allocation. A target whose compute stopped meanwhile ends the record ``error`` and
  the server ERROR on its source (Nova's ``_error_out_instance_on_exception``);
- ``confirmResize`` (VERIFY_RESIZE only: 409 naming the vm_state; the source's service
  up) makes the record ``confirming``, then ``confirmed`` once the source's compute
  carried it out (a lost cast leaves it ``confirming``): the source's allocation is
  freed and the server is ACTIVE again, or SHUTOFF if it was stopped.
"""

from __future__ import annotations

from keyvrm.drivers.errors import CloudError
from keyvrm.simulator import region as r

COLD_MIGRATION = "migration"  # Nova's migration_type of a cold migration
VERIFY_RESIZE = "VERIFY_RESIZE"
_COLD_MIGRATABLE = (r.ACTIVE, r.SHUTOFF)
_NOVA_VM_STATE = {r.SHUTOFF: "stopped", VERIFY_RESIZE: "resized"}


def vm_state(status: str) -> str:
    """Nova's vm_state of a server status, as its 409 answers name it (SHUTOFF is ``stopped``)."""
    return _NOVA_VM_STATE.get(status, status.lower())


class ColdMigration:
    """The cold migration part of ``keyvrm.simulator.compute.Compute`` (whose helpers it uses)."""

    def cold_migrate(self, server_id: str, target_host: str) -> r.Migration:
        """Accept a cold migration of an ACTIVE or SHUTOFF server to ``target_host`` (see the module)."""
        self.check_api()
        vm = self.server_for("migrate", server_id, _COLD_MIGRATABLE)
        source = self.region.hosts[vm.host]
        if self.region.service_is_down(source):
            raise CloudError(409, "Service is unavailable at this time.", "service_unavailable")
        if target_host == source.name:
            raise CloudError(400, "Cannot migrate to the host where the server exists.", "same_host")
        target = self.region.hosts.get(target_host)
        if target is None:
            raise CloudError(400, f"Compute host {target_host} could not be found.", "bad_request")
        migration = self._new_migration(vm, COLD_MIGRATION, source, target)
        self._set_status(migration, "pre-migrating")
        vm.task_state = "resize_prep"
        self._later(self.region.options.scheduling_delay_s, self._cold_scheduled, migration)
        return migration

    def _cold_scheduled(self, migration):
        vm = self.region.vms[migration.server_id]
        target = self.region.hosts[migration.dest_host]
        reason = self._target_rejection(vm, target)
        if reason:
            self._finish(migration, "error", reason)
            return
        self._claim(migration, target)
        self._set_status(migration, "migrating")
        vm.task_state = "resize_migrating"
        migration.was_running, vm.running = vm.running, False
        self._later(self.cold_migration_duration_s(vm), self._cold_copied, migration)

    def cold_migration_duration_s(self, vm) -> float:
        """Power-off, then the local disk's copy at the link rate (none for a volume-backed server)."""
        opts = self.region.options
        copy_s = 0.0 if vm.volume_backed else vm.flavor.disk_gb * 8192.0 / opts.migration_bandwidth_mbps
        return self._jitter(opts.power_off_delay_s + opts.migration_base_s + copy_s)

    def _cold_copied(self, migration):
        vm = self.region.vms[migration.server_id]
        source = self.region.hosts[vm.host]
        target = self.region.hosts[migration.dest_host]
        if not target.compute_reporting:
            vm.status = r.ERROR
            self._finish(migration, "error", f"Compute host {target.name} went away during the migration")
            return
        source.vms.remove(vm)
        target.vms.append(vm)
        vm.host = target.name
        migration.claimed, migration.source_held = False, True  # the source's allocation until confirmed
        vm.task_state = "resize_migrated"
        self._set_status(migration, "post-migrating")
        self._later(self.region.options.scheduling_delay_s, self._cold_finished, migration)

    def _cold_finished(self, migration):
        vm = self.region.vms[migration.server_id]
        vm.status, vm.task_state, vm.running = VERIFY_RESIZE, None, migration.was_running
        self._set_status(migration, "finished")

    def confirm_resize(self, server_id: str) -> None:
        """Accept the confirmation of a server's finished cold migration (see the module)."""
        self.check_api()
        vm = self.server_for("confirmResize", server_id, (VERIFY_RESIZE,))
        migration = next(m for m in self.region.active_migrations.values()
                         if m.server_id == vm.id and m.status == "finished")
        if self.region.service_is_down(self.region.hosts[migration.source_host]):
            raise CloudError(409, "Service is unavailable at this time.", "service_unavailable")
        self._set_status(migration, "confirming")
        self._later(self.region.options.scheduling_delay_s, self._confirmed, migration)

    def _confirmed(self, migration):
        vm = self.region.vms[migration.server_id]
        source = self.region.hosts[migration.source_host]
        if not source.compute_reporting:
            return  # the cast to the source is lost: the record stays confirming, as in Nova
        source.used_vcpus -= migration.vcpus
        source.used_ram_mb -= migration.ram_mb
        migration.source_held = False
        vm.status = r.ACTIVE if vm.running else r.SHUTOFF
        self._finish(migration, "confirmed")
