"""Schemas of a VM's lifecycle state and history (SPEC section 8)."""

from keyvrm.api.schemas import common

VM_ITEM = common.obj({
    "vm_id": common.STRING, "desired_host": common.OPT_STRING, "desired_status": common.OPT_STRING,
    "observed_host": common.OPT_STRING, "observed_status": common.OPT_STRING,
    "observed_at": common.OPT_TIMESTAMP, "locked": common.BOOLEAN, "lock_owner": common.OPT_STRING,
    "locked_at": common.OPT_TIMESTAMP, "transitional_state": common.OPT_STRING,
    "deadline_at": common.OPT_TIMESTAMP, "failure_state": common.OPT_STRING,
    "updated_at": common.TIMESTAMP})
VM = common.obj({"vm": VM_ITEM})
VMS = common.collection("vms", VM_ITEM)
HISTORY_ENTRY = common.obj({"action": common.STRING, "status": common.STRING, "message": common.OPT_STRING,
                            "started_at": common.TIMESTAMP, "finished_at": common.OPT_TIMESTAMP,
                            "duration_s": common.OPT_NUMBER})
HISTORY = common.obj({"history": {"type": "array", "items": HISTORY_ENTRY}})
UNLOCK = {"type": "object", "additionalProperties": False, "properties": {}}
UNLOCKED = common.obj({"vm_id": common.STRING, "was_locked": common.BOOLEAN})
