"""Schemas of cycles (MasterFlow runs, with the reason when nothing was done)."""

from keyvrm.api.schemas import common

_FIELDS = {"id": common.INTEGER, "status": common.STRING, "reason_code": common.OPT_STRING,
           "reason": common.OPT_STRING, "snapshot_id": common.OPT_INTEGER,
           "started_at": common.TIMESTAMP, "finished_at": common.OPT_TIMESTAMP}
CYCLE_ITEM = common.obj(_FIELDS)
CYCLES = common.collection("cycles", CYCLE_ITEM)
CYCLE = common.obj({"cycle": common.obj(dict(_FIELDS, event_count=common.INTEGER))})
REQUEST = {"type": "object", "additionalProperties": False, "properties": {}}
