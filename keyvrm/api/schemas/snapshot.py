"""Schemas of stored region snapshots (summaries; the raw document is the codec's)."""

from keyvrm.api.schemas import common

_SOURCE = common.obj({"ok": common.BOOLEAN, "error": common.OPT_STRING})
SNAPSHOT_ITEM = common.obj({
    "id": common.INTEGER, "region": common.STRING, "taken_at": common.TIMESTAMP,
    "format_version": common.INTEGER, "hypervisor_count": common.INTEGER, "vm_count": common.INTEGER,
    "sources": {"type": "object", "additionalProperties": _SOURCE}, "size_bytes": common.INTEGER,
    "created_at": common.TIMESTAMP})
SNAPSHOTS = common.collection("snapshots", SNAPSHOT_ITEM)
SNAPSHOT = common.obj({"snapshot": SNAPSHOT_ITEM})
RAW = {"type": "object", "description": "the versioned snapshot document (keyvrm.model.codec)"}
