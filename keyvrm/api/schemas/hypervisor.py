"""Schemas of hypervisors as KeyVRM holds them (state, since, why, fencing) and their return to service."""

from keyvrm.api import microversion
from keyvrm.api.schemas import common
from keyvrm.api.schemas import reason
from keyvrm.model import states

FENCING_STEP = common.obj({"fencer": common.OPT_STRING, "confirmed": {"type": ["boolean", "null"]},
                           "message": common.OPT_STRING, "started_at": {"type": ["number", "string", "null"]},
                           "finished_at": {"type": ["number", "string", "null"]}})
SERVICE = common.nullable(common.obj({"state": common.STRING, "status": common.STRING,
                                      "forced_down": common.BOOLEAN, "disabled_reason": common.OPT_STRING}))
STATE = {"type": "string", "enum": states.values(states.HypervisorState)}
HYPERVISOR_ITEM = common.obj({
    "host": common.STRING, "state": STATE, "state_since": common.OPT_TIMESTAMP,
    "reason": common.OPT_STRING, "event_id": common.OPT_STRING, "fenced_at": common.OPT_TIMESTAMP,
    "fencing": {"type": "array", "items": FENCING_STEP}, "availability_zone": common.OPT_STRING,
    "aggregates": {"type": "array", "items": common.STRING}, "service": SERVICE,
    "snapshot_id": common.OPT_INTEGER, "seen_at": common.OPT_TIMESTAMP, "restorable": common.BOOLEAN})
HYPERVISORS = common.collection("hypervisors", HYPERVISOR_ITEM)
HYPERVISOR = common.obj({"hypervisor": HYPERVISOR_ITEM})


def _restore(version):
    """A restore's body at ``version``: from 1.8 it may ask for the host's failback."""
    properties = {}
    if version >= microversion.DRAIN:
        properties["failback"] = dict(common.BOOLEAN, description="once the host is back, bring back the VMs"
                                      " KeyVRM moved off it (drain, HA evacuation): recommendations, run at once"
                                      " where the aggregate's failback is auto")
    return {"type": "object", "additionalProperties": False, "properties": properties}


RESTORE = reason.versioned(_restore)
# Nova keeps a service's disabled reason in 255 characters; the engine writes "KeyVRM drain: " first
MAX_DRAIN_REASON = 240


def _drain(version):
    """A drain's body at ``version``: its reason; from 1.11 whether cold migration is allowed."""
    properties = {"reason": dict(common.VISIBLE_TEXT, maxLength=MAX_DRAIN_REASON,
                                 description="why the host is drained (e.g. the maintenance ticket); its"
                                             " compute service is disabled with it")}
    if version >= microversion.ALLOW_COLD:
        properties["allow_cold"] = dict(common.BOOLEAN, description=(
            "cold-migrate (Nova's migrate, then confirmResize) the VMs a live migration cannot move: stopped"
            " (SHUTOFF) VMs, and ACTIVE VMs whose live migration in this drain failed; a running VM is powered"
            " off for its move and started on its target. Default false: they stay and are named"))
    return {"type": "object", "additionalProperties": False, "required": ["reason"], "properties": properties}


DRAIN = reason.versioned(_drain)
