"""Schemas of events (SPEC section 4); their reasons differ by microversion (schemas/reason.py)."""

from keyvrm.api.schemas import common
from keyvrm.api.schemas import reason
from keyvrm.model import states

_FIELDS = {
    "id": common.STRING, "aggregate_name": common.STRING,
    "kind": {"type": "string", "enum": states.values(states.EventKind)},
    "marker": common.STRING,
    "status": {"type": "string", "enum": states.values(states.EventStatus)},
    "state": {"type": ["string", "null"], "enum": states.values(states.EventState) + [None]},
    "reason_code": dict(common.OPT_STRING, description="the most telling code of the reasons (the first)"),
    "cycle_id": common.OPT_INTEGER, "snapshot_id": common.OPT_INTEGER,
    "created_at": common.TIMESTAMP, "updated_at": common.TIMESTAMP, "finished_at": common.OPT_TIMESTAMP,
}


def event_fields(version) -> dict:
    """The fields of an event in a list or embedded in an aggregate, at ``version``."""
    return dict(_FIELDS, **reason.fields(version))


def event_item(version) -> dict:
    """An event as lists and aggregates show it, at ``version``."""
    return common.obj(event_fields(version))


def optional_event_item(version) -> dict:
    """An embedded event, or null, at ``version``."""
    return {"anyOf": [event_item(version), {"type": "null"}]}


EVENTS = reason.versioned(lambda version: common.collection("events", event_item(version)))
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
    "message": dict(common.STRING, description="the same sentence as the event's reason for this VM or host"),
    "rejected_hosts": {"type": "array", "items": REJECTED_HOST,
                       "description": "one item per (candidate host, check), sorted by host then check;"
                                      " at most [engine] max_rejected_hosts"},
    "more_hosts": {"type": "integer", "minimum": 0,
                   "description": "(host, check) items left out of rejected_hosts by the cap"}})
EVENT = reason.versioned(lambda version: common.obj({"event": common.obj(dict(
    event_fields(version), recommendations={
        "type": "object", "additionalProperties": common.INTEGER,
        "description": "number of recommendations by status"}, no_target={
        "type": "array", "items": NO_TARGET_ENTRY,
        "description": "per VM (HA) or overloaded source host (LB) that found no target, which check"
                       " rejected each candidate host; ordered by source_host then vm_id; empty when none"}))}))
