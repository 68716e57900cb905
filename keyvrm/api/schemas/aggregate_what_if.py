"""Schemas of an aggregate's what-if (POST /v1/aggregates/{name}/what-if, microversion 1.3)."""

from keyvrm.api.schemas import common
from keyvrm.api.schemas import event
from keyvrm.api.schemas import reason
from keyvrm.model import states

REQUEST = common.obj({"fail": {
    "type": "array", "minItems": 1, "maxItems": 1000, "uniqueItems": True,
    "items": dict(common.VISIBLE_TEXT, maxLength=255),
    "description": "the hosts of the aggregate supposed dead, each once"}})

MOVE = common.obj({
    "vm_id": common.STRING, "name": common.STRING,
    "source": dict(common.STRING, description="the failed host the VM leaves"),
    "target": dict(common.STRING, description="the host Nova would be asked to rebuild it on"),
    "evacuate_order": dict(common.OPT_INTEGER, description="the VM's evacuate_order metadata, null if none"),
    "round": dict(common.INTEGER, description="the HA round: 1 (round 2 only re-plans what Nova failed)"),
    "tier": dict(common.INTEGER, description="1-based: evacuate_order values ascending, VMs without one last;"
                 " a tier starts when the one before was accepted (or [executor] tier_wait passed)"),
    "step": dict(common.INTEGER, description="1-based position among all moves in the order the executor"
                 " asks Nova (tier by tier, planned order inside a tier)")})
_END_STATES = sorted(s.value for s in states.HypervisorState)
HOST = common.obj({
    "host": common.STRING,
    "fenced": dict(common.BOOLEAN, description="whether HA would fence (and evacuate) it now; not past the"
                   " mass-failure guard, without a fencer, when busy or when no enabled fencer can handle it"),
    "end_state": {"type": "string", "enum": _END_STATES,
                  "description": "maintenance if every VM on it moves, error if any stays; ok if HA would not"
                                 " fence it (nothing evacuated); for a host KeyVRM already handles, its state"},
    "handled_state": dict(common.OPT_STRING, description="the KeyVRM state of a host an HA run already"
                          " handles (it is not planned again); null otherwise"),
    "vm_count": dict(common.INTEGER, description="VMs on the host in the snapshot"),
    "moves": {"type": "array", "items": MOVE, "description": "its VMs that get a target, by step"},
    "skipped": dict(reason.ENTRIES, description="why VMs (or the whole host) would not be evacuated: excluded"
                    " by metadata (no_evac), local disk, busy, fencing_impossible, already_handled; reason"
                    " entries as events carry them"),
    "no_target": {"type": "array", "items": event.NO_TARGET_ENTRY,
                  "description": "its VMs without a target, with the check that rejected each candidate host"}})
WHAT_IF = common.obj({"what_if": common.obj({
    "aggregate": common.STRING, "snapshot_id": common.INTEGER, "taken_at": common.TIMESTAMP,
    "fail": {"type": "array", "items": common.STRING},
    "ha_runs": dict(common.BOOLEAN, description="whether a cycle would run HA on this aggregate now"),
    "ha_not_run": dict(common.nullable(reason.ENTRY), description="why not (disabled, noop,"
                       " storage_undeclared): the plan is what HA would make once it runs"),
    "hosts": {"type": "array", "items": HOST, "description": "one per failed host, in the order asked"},
    "notes": dict(reason.ENTRIES, description="about the plan as a whole: why HA would fence none of the"
                  " hosts (mass_failure_guard, no_fencer), how it planned (no_filters, filter_input_unknown)")})})
