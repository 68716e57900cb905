"""Schemas of events (SPEC section 4)."""

from keyvrm.api.schemas import common
from keyvrm.db import models

_FIELDS = {
    "id": common.STRING, "aggregate_name": common.STRING,
    "kind": {"type": "string", "enum": list(models.EVENT_KINDS)},
    "marker": common.STRING,
    "status": {"type": "string", "enum": list(models.EVENT_STATUSES)},
    "state": {"type": ["string", "null"], "enum": list(models.EVENT_STATES) + [None]},
    "reason_code": common.OPT_STRING, "reason": common.OPT_STRING,
    "cycle_id": common.OPT_INTEGER, "snapshot_id": common.OPT_INTEGER,
    "created_at": common.TIMESTAMP, "updated_at": common.TIMESTAMP, "finished_at": common.OPT_TIMESTAMP,
}
EVENT_ITEM = common.obj(_FIELDS)
OPT_EVENT_ITEM = {"anyOf": [EVENT_ITEM, {"type": "null"}]}
EVENTS = common.collection("events", EVENT_ITEM)
EVENT = common.obj({"event": common.obj(dict(_FIELDS, recommendations={
    "type": "object", "additionalProperties": common.INTEGER,
    "description": "number of recommendations by status"}))})
