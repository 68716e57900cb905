"""The cloud driver interface: what KeyVRM reads from and asks of Nova, Placement, Neutron, Cinder.

Read calls return ``keyvrm.model.snapshot`` dataclasses (and the two small records
below). Servers come back with their raw ``metadata``: the harvester, which knows the
business config's metadata keys, derives ``no_evac``/``no_migr``/``evacuate_order``;
``metrics`` stays None (the metrics driver owns it). Action calls follow Nova's
"accepted is not done": they return at once with the migration record (status
``accepted``) and completion is read with ``get_migration``/``list_migrations``.
Every call may raise ``keyvrm.drivers.errors.CloudError`` (an HTTP error answer) or
``DriverUnavailable`` (no answer).
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Optional, Union

from keyvrm.model import snapshot

# Values of ``block_migration`` Nova accepts (microversion >= 2.25).
BLOCK_MIGRATION_AUTO = "auto"


@dataclasses.dataclass(frozen=True, slots=True)
class PortBinding:
    """One Neutron port binding of a server's port on one host."""

    port_id: str
    host: str
    status: str  # ACTIVE or INACTIVE


@dataclasses.dataclass(frozen=True, slots=True)
class VolumeAttachment:
    """One Cinder attachment of a server's volume (``attached``, or stale ``reserved``)."""

    id: str
    server_id: str
    volume_id: str
    host: Optional[str]
    status: str


class CloudDriver(abc.ABC):
    """Reads the region and acts on its servers and compute services."""

    # --- reads -------------------------------------------------------------------
    @abc.abstractmethod
    def list_availability_zones(self) -> list[snapshot.AvailabilityZone]:
        """Compute availability zones of the region."""

    @abc.abstractmethod
    def list_aggregates(self) -> list[snapshot.Aggregate]:
        """Host aggregates with metadata and member hosts."""

    @abc.abstractmethod
    def list_compute_services(self) -> list[snapshot.ComputeService]:
        """The nova-compute service of every host, with state and admin status."""

    @abc.abstractmethod
    def get_service(self, host: str) -> snapshot.ComputeService:
        """A fresh read of one host's nova-compute service (``NotFoundInCloud`` if unknown)."""

    @abc.abstractmethod
    def list_hypervisors(self) -> list[snapshot.Hypervisor]:
        """Capacity records of every hypervisor.

        Filled: name, availability_zone, aggregates, hugepages, traits, capabilities,
        hypervisor_type/version, net_capacity_mbps, host_ip. Left empty for the
        harvester to join: service, inventories, metrics, heartbeat_at.
        """

    @abc.abstractmethod
    def list_inventories(self) -> dict[str, dict[str, snapshot.Inventory]]:
        """Placement inventories with usage: host -> resource class -> Inventory."""

    def host_inventories(self, host: str) -> dict[str, snapshot.Inventory]:
        """A fresh read of one host's Placement inventories with usage ({} if it has none).

        This default reads every host's; a driver that can read one host alone overrides it.
        """
        return self.list_inventories().get(host, {})

    @abc.abstractmethod
    def list_servers(self) -> list[snapshot.VM]:
        """Every server of every project (``all_projects``), metrics left None."""

    @abc.abstractmethod
    def list_servers_on(self, host: str) -> list[snapshot.VM]:
        """The servers Nova places on ``host`` (every project), metrics left None: a fresh read of one host."""

    @abc.abstractmethod
    def get_server(self, server_id: str) -> snapshot.VM:
        """A fresh read of one server (``NotFoundInCloud`` if it is gone), for the executor."""

    @abc.abstractmethod
    def list_server_groups(self) -> list[snapshot.ServerGroup]:
        """Every server group of every project, with members."""

    @abc.abstractmethod
    def list_images(self) -> list[snapshot.Image]:
        """Images with the properties Nova's filters read."""

    @abc.abstractmethod
    def list_migrations(self, changes_since: Optional[float] = None) -> list[snapshot.Migration]:
        """Migration records (evacuations and live migrations), optionally only recent ones."""

    def list_server_migrations(self, server_id: str) -> list[snapshot.Migration]:
        """The migration records of one server (by default filtered from ``list_migrations``)."""
        return [mig for mig in self.list_migrations() if mig.server_id == server_id]

    @abc.abstractmethod
    def get_migration(self, migration_id: int, server_id: Optional[str] = None) -> snapshot.Migration:
        """One migration record, for polling; ``NotFoundInCloud`` if unknown.

        ``server_id``, the migrated server, lets a driver read only that server's records.
        """

    @abc.abstractmethod
    def get_migration_fault(self, migration: snapshot.Migration) -> Optional[str]:
        """Nova's message for why ``migration`` did not complete (e.g. "No valid host was found."), or None.

        The message of the failed step of the server's action that made the record (the
        conductor's scheduling, the rebuild on the target, ...); None when Nova recorded none.
        """

    @abc.abstractmethod
    def list_port_bindings(self, server_id: str) -> list[PortBinding]:
        """Port bindings of the server's ports, active and inactive."""

    @abc.abstractmethod
    def list_volume_attachments(self, server_id: str) -> list[VolumeAttachment]:
        """Volume attachments of the server, stale ones included."""

    # --- actions -----------------------------------------------------------------
    @abc.abstractmethod
    def evacuate(self, server_id: str, target_host: str) -> snapshot.Migration:
        """Ask Nova to rebuild the server on ``target_host``; its source must be down."""

    @abc.abstractmethod
    def live_migrate(self, server_id: str, target_host: str,
                     block_migration: Union[str, bool] = BLOCK_MIGRATION_AUTO
                     ) -> snapshot.Migration:
        """Ask Nova to live-migrate the server to ``target_host``."""

    @abc.abstractmethod
    def cold_migrate(self, server_id: str, target_host: str) -> snapshot.Migration:
        """Ask Nova to cold-migrate the server (ACTIVE or SHUTOFF) to ``target_host``.

        Nova's migration record (type ``migration``) goes ``pre-migrating`` ->
        ``migrating`` -> ``post-migrating`` -> ``finished``: the server is then
        VERIFY_RESIZE on the target, its source allocation still held until
        ``confirm_resize``.
        """

    @abc.abstractmethod
    def confirm_resize(self, server_id: str) -> None:
        """Confirm the server's finished cold migration (VERIFY_RESIZE on its target).

        Accepted, then the record ends ``confirmed``, the source's allocation is freed and
        the server is ACTIVE (or SHUTOFF) again.
        """

    @abc.abstractmethod
    def force_down_service(self, host: str, forced_down: bool = True) -> snapshot.ComputeService:
        """Set (or clear) ``forced_down`` on the host's compute service."""

    @abc.abstractmethod
    def disable_service(self, host: str, reason: str) -> snapshot.ComputeService:
        """Disable the host's compute service with a reason."""

    @abc.abstractmethod
    def enable_service(self, host: str) -> snapshot.ComputeService:
        """Enable the host's compute service again."""

    @abc.abstractmethod
    def stop_server(self, server_id: str) -> None:
        """Ask Nova to stop the server (accepted; completion shows in its status)."""

    @abc.abstractmethod
    def start_server(self, server_id: str) -> None:
        """Ask Nova to start a SHUTOFF server (accepted; completion shows in its status).

        From microversion 2.95 Nova leaves an evacuated server SHUTOFF; the executor
        starts the ones that were running before.
        """

    @abc.abstractmethod
    def delete_port_binding(self, port_id: str, host: str) -> None:
        """Delete the port's binding on ``host`` (cleanup after a failed migration)."""

    @abc.abstractmethod
    def delete_volume_attachment(self, attachment_id: str) -> None:
        """Delete a stale volume attachment (cleanup after a failed evacuation)."""
