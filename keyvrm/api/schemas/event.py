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
REJECTED_HOST = common.obj({
    "host": dict(common.STRING, description="a candidate target host"),
    "check": dict(common.STRING, description="what rejected it: a Nova filter's name (e.g."
                  " ServerGroupAntiAffinityFilter), a capacity code (ram_depleted, cpu_depleted,"
                  " quota_exceeded, ...), busy, offline, or an LB check (lb_target_max_load,"
                  " lb_ceilings.<resource>, min_improvement, no_metrics)"),
    "vms": {"type": "integer", "minimum": 1,
            "description": "how many VMs this check rejected on this host: 1 for HA (the entry's VM),"
                           " for LB how many of the source's VMs"}})
NO_TARGET_ENTRY = common.obj({
    "vm_id": dict(common.OPT_STRING, description="the VM without a target (HA); null for an LB entry"),
    "source_host": dict(common.STRING, description="the host the VM (HA) or the load (LB) would leave"),
    "code": dict(common.STRING, description="no_target, or the capacity code the planner reported instead"
                 " (ram_depleted, cpu_depleted, quota_exceeded, no_online_hypervisor)"),
    "message": dict(common.STRING, description="the same sentence as in the event's reason"),
    "rejected_hosts": {"type": "array", "items": REJECTED_HOST,
                       "description": "one item per (candidate host, check), sorted by host then check;"
                                      " at most [engine] max_rejected_hosts"},
    "more_hosts": {"type": "integer", "minimum": 0,
                   "description": "(host, check) items left out of rejected_hosts by the cap"}})
EVENT = common.obj({"event": common.obj(dict(_FIELDS, recommendations={
    "type": "object", "additionalProperties": common.INTEGER,
    "description": "number of recommendations by status"}, no_target={
    "type": "array", "items": NO_TARGET_ENTRY,
    "description": "per VM (HA) or overloaded source host (LB) that found no target, which check"
                   " rejected each candidate host; ordered by source_host then vm_id; empty when none"}))})
