"""Nova, Glance, Neutron and Cinder JSON bodies -> snapshot dataclasses (no I/O here)."""

from __future__ import annotations

import datetime
from typing import Optional

from oslo_utils import timeutils

from keyvrm.drivers.cloud import base
from keyvrm.model import snapshot as m

# Glance image fields that are not image properties.
_GLANCE_CORE = frozenset((
    "id", "name", "status", "visibility", "protected", "checksum", "owner", "size",
    "min_ram", "min_disk", "disk_format", "container_format", "created_at", "updated_at",
    "tags", "self", "file", "schema", "virtual_size", "locations", "direct_url",
    "os_hash_algo", "os_hash_value", "os_hidden", "stores"))


def posix(value: Optional[str]) -> Optional[float]:
    """An OpenStack timestamp (ISO 8601, naive = UTC) as POSIX seconds."""
    if not value:
        return None
    parsed = timeutils.parse_isotime(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.timestamp()


def iso(posix_s: float) -> str:
    """POSIX seconds as the UTC ISO 8601 text Nova's ``changes-since`` takes."""
    return datetime.datetime.fromtimestamp(posix_s, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def service(body: dict) -> m.ComputeService:
    """An ``os-services`` entry (microversion >= 2.11: ``forced_down``)."""
    return m.ComputeService(
        host=body["host"], state=body.get("state") or m.SERVICE_DOWN,
        status=body.get("status") or m.SERVICE_ENABLED,
        forced_down=bool(body.get("forced_down")), disabled_reason=body.get("disabled_reason"),
        updated_at=posix(body.get("updated_at")))


def aggregate(body: dict) -> m.Aggregate:
    """An ``os-aggregates`` entry (microversion >= 2.41: ``uuid``)."""
    return m.Aggregate(name=body["name"], nova_id=int(body["id"]), uuid=body.get("uuid"),
                       availability_zone=body.get("availability_zone"),
                       metadata=dict(body.get("metadata") or {}), hosts=tuple(body.get("hosts") or ()))


def availability_zones(body: dict) -> dict:
    """``os-availability-zone/detail`` -> {compute host: zone}, internal zone left out."""
    out = {}
    for zone in body.get("availabilityZoneInfo", []):
        for host, services in (zone.get("hosts") or {}).items():
            if "nova-compute" in services:
                out[host] = zone["zoneName"]
    return out


def flavor(body: dict) -> m.Flavor:
    """A server's embedded flavor (microversion >= 2.47)."""
    return m.Flavor(name=body.get("original_name", ""), vcpus=int(body["vcpus"]),
                    ram_mb=int(body["ram"]), disk_gb=int(body.get("disk") or 0),
                    extra_specs=dict(body.get("extra_specs") or {}))


def server(body: dict, groups_by_member: dict) -> m.VM:
    """A ``servers/detail`` entry (microversion 2.100: flavor, image properties, hints)."""
    image = body.get("image") or None  # "" when booted from a volume
    hints = body.get("scheduler_hints") or {}
    return m.VM(
        id=body["id"], name=body.get("name", ""), host=body.get("OS-EXT-SRV-ATTR:host"),
        project_id=body.get("tenant_id", ""), flavor=flavor(body["flavor"]),
        status=body.get("status", ""), task_state=body.get("OS-EXT-STS:task_state"),
        image_id=image["id"] if image else None,
        server_group_id=groups_by_member.get(body["id"]),
        metadata=dict(body.get("metadata") or {}),
        volume_backed=not image,
        scheduler_hints={k: v for k, v in hints.items() if k != "group"},
        vm_state=body.get("OS-EXT-STS:vm_state"))


def server_group(body: dict) -> m.ServerGroup:
    """An ``os-server-groups`` entry (microversion >= 2.64: ``policy`` and ``rules``)."""
    return m.ServerGroup(id=body["id"], name=body.get("name", ""), policy=body["policy"],
                         members=tuple(body.get("members") or ()),
                         rules=dict(body.get("rules") or {}), project_id=body.get("project_id"))


def image(body: dict) -> m.Image:
    """A Glance v2 image; its properties are the fields Glance does not define itself."""
    return m.Image(id=body["id"], properties={k: v for k, v in body.items() if k not in _GLANCE_CORE})


def migration(body: dict) -> m.Migration:
    """An ``os-migrations`` entry (microversion >= 2.59: paginated, ``uuid``)."""
    return m.Migration(
        id=int(body["id"]), server_id=body["instance_uuid"],
        migration_type=body.get("migration_type", ""), status=body.get("status", ""),
        source_host=body.get("source_compute"), dest_host=body.get("dest_compute"),
        created_at=posix(body.get("created_at")), updated_at=posix(body.get("updated_at")))


# os-migrations ``migration_type`` -> the instance action that makes such a record
ACTION_OF_MIGRATION = {"evacuation": "evacuate", "live-migration": "live-migration"}
# An action begins before its migration record is made; both times come from Nova's database.
_ACTION_BEFORE_RECORD_SLACK_S = 1.0


def action_of(actions: list, name: str, made_at: Optional[float]) -> Optional[dict]:
    """The newest of ``actions`` (``os-instance-actions``, newest first) called ``name`` begun by ``made_at``."""
    for body in actions:
        began = posix(body.get("start_time"))
        if body.get("action") == name and (made_at is None or began is None
                                           or began <= made_at + _ACTION_BEFORE_RECORD_SLACK_S):
            return body
    return None


def action_fault(body: dict) -> Optional[str]:
    """The message of an instance action's failed event (microversion >= 2.84: ``details``), or None."""
    for event in body.get("events") or ():
        if event.get("result") == "Error" and (event.get("details") or "").strip():
            return event["details"].strip()
    return None


def hypervisor(body: dict, zones: dict, aggregates_of: dict, traits: tuple) -> m.Hypervisor:
    """An ``os-hypervisors/detail`` entry (microversion 2.87) joined with zone/aggregates/traits.

    Named by its compute service's host (the name every other read uses). Capabilities
    hold what the API reports of Nova's scheduler host state: ``cpu_info`` (a dict since
    2.28; ``arch`` is the host CPU's architecture). The compute node's
    ``supported_instances``, stats and NUMA topology are in no Nova API, and neither are
    HugePages: ``hugepages`` is None (not reported), never "none".
    """
    host = (body.get("service") or {}).get("host") or body["hypervisor_hostname"]
    cpu_info = body.get("cpu_info")
    capabilities = {"cpu_info": dict(cpu_info)} if isinstance(cpu_info, dict) and cpu_info else {}
    return m.Hypervisor(
        name=host, availability_zone=zones.get(host), aggregates=tuple(aggregates_of.get(host, ())),
        traits=traits, hugepages=None, capabilities=capabilities,
        hypervisor_type=body.get("hypervisor_type") or "",
        hypervisor_version=int(body.get("hypervisor_version") or 0), host_ip=body.get("host_ip"))


def port_bindings(port_id: str, body: dict) -> list:
    """Neutron ``/ports/{id}/bindings`` -> PortBinding list."""
    return [base.PortBinding(port_id=port_id, host=b["host"], status=b.get("status", ""))
            for b in body.get("bindings", [])]


def volume_attachment(body: dict) -> base.VolumeAttachment:
    """A Cinder ``/attachments`` entry (volume microversion >= 3.27)."""
    return base.VolumeAttachment(id=body["id"], server_id=body.get("instance"),
                                 volume_id=body.get("volume_id"),
                                 host=(body.get("connection_info") or {}).get("host")
                                 or body.get("attached_host"),
                                 status=body.get("status") or body.get("attach_status", ""))
