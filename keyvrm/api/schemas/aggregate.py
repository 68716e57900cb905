"""Schemas of host aggregates and their business config (SPEC section 2)."""

from keyvrm.api import ids
from keyvrm.api import microversion
from keyvrm.api.schemas import common
from keyvrm.api.schemas import cycle
from keyvrm.api.schemas import event
from keyvrm.api.schemas import reason
from keyvrm.model import settings

_PERCENT = {"type": "number", "minimum": 0, "maximum": 100}
_WEIGHT = {"type": "number", "minimum": 0, "maximum": 1000}
WEIGHTS = {"type": "object", "properties": {k: _WEIGHT for k in settings.LB_WEIGHT_KEYS},
           "additionalProperties": False}
# A ceiling in % (a host at or above it is overloaded whatever its syn_score); null: none.
_CEILING = {"type": ["number", "null"], "minimum": 1, "maximum": 100}
CEILINGS = {"type": "object", "properties": {k: _CEILING for k in settings.LB_CEILING_KEYS},
            "additionalProperties": False}

CONFIG_FIELDS = {
    "marker": {"type": "string", "enum": list(settings.MARKERS)},
    "no_op_mode": common.BOOLEAN,
    "no_op_reason": {"type": ["string", "null"], "maxLength": 65535},
    "lb_period": {"type": "integer", "minimum": 0, "maximum": ids.INT32_MAX},
    "lb_weights": WEIGHTS,
    "lb_overload_threshold": _PERCENT,
    "lb_target_max_load": _PERCENT,
    "lb_ceilings": CEILINGS,
    # Where image-backed disks live; null: undeclared, and HA does not run here.
    "storage_mode": {"type": ["string", "null"], "enum": list(settings.STORAGE_MODES) + [None]},
    # Hosts whose failure HA must be able to absorb; 0: no reserve.
    "ha_failover_reserve": {"type": "integer", "minimum": 0, "maximum": settings.MAX_FAILOVER_RESERVE},
    # The LB dial (from 1.6): choosing a level writes its thresholds, except those the same request gives.
    "lb_level": {"type": "integer", "minimum": min(settings.LB_LEVELS), "maximum": max(settings.LB_LEVELS),
                 "description": "the LB dial: 1 relieves only hosts at a ceiling, 3 (the default) hot spots"
                                " above 80% syn_score, 5 also evens hosts out around the aggregate's mean;"
                                " choosing one sets lb_overload_threshold, lb_target_max_load and"
                                " lb_ceilings to its values, except those given in the same request"},
    # From 1.7: how long an overload must last, and the least gain of a move.
    "lb_persistence": {"type": "integer", "minimum": 1, "maximum": settings.MAX_LB_PERSISTENCE,
                       "description": "how many consecutive LB runs must find a host overloaded before LB"
                                      " moves VMs off it (1: the first run acts; each run reads loads"
                                      " averaged over the metrics window)"},
    "lb_min_gain": {"type": "number", "minimum": 0, "maximum": settings.MAX_LB_MIN_GAIN,
                    "description": "the least a move must narrow the gap between its source and its"
                                   " target, in points of each measure it relieves"},
    # From 1.8: what a restore of one of its hosts does with the VMs KeyVRM moved off it.
    "failback": {"type": "string", "enum": list(settings.FAILBACK_MODES),
                 "description": "after a host is returned to service: off (its VMs stay where KeyVRM moved"
                                " them, unless the restore asks for failback), recommend (manual live"
                                " migrations back, the default) or auto (run at once)"},
}
assert set(CONFIG_FIELDS) == set(settings.AGGREGATE_CONFIG_FIELDS)
# The config fields each came with a microversion after 1.0 (below it they are neither shown nor accepted).
CONFIG_FIELDS_SINCE = {"lb_level": microversion.LB_LEVEL, "lb_persistence": microversion.LB_PERSISTENCE,
                       "lb_min_gain": microversion.LB_PERSISTENCE, "failback": microversion.DRAIN}
OVERRIDDEN = {"type": "array",
              "items": {"type": "string", "enum": sorted(settings.LB_LEVELS[settings.DEFAULT_LB_LEVEL])},
              "description": "the thresholds that differ from what lb_level sets (the operator overrode them"
                             " after choosing it), sorted; [] when all are the level's"}


def config_fields(version):
    """The business config fields of an aggregate at ``version``."""
    return {name: schema for name, schema in CONFIG_FIELDS.items()
            if version >= CONFIG_FIELDS_SINCE.get(name, microversion.MIN_VERSION)}


def _item_fields(version):
    """An aggregate's fields at ``version``.

    Its events' reasons differ; 1.4 adds failover, 1.6 the LB level, 1.10 its number of hosts.
    """
    fields = dict(config_fields(version), name=common.STRING, nova_id=common.OPT_INTEGER,
                  availability_zone=common.OPT_STRING, deleted=common.BOOLEAN,
                  created_at=common.TIMESTAMP, updated_at=common.TIMESTAMP,
                  last_event=event.optional_event_item(version),
                  last_event_state={"type": ["string", "null"]})
    if version >= microversion.FAILOVER:
        fields.update(
            failover_tolerance=dict(common.OPT_INTEGER, description="how many host failures the last cycle found"
                                    " the aggregate absorbs, searched up to its reserve (so equal to the reserve"
                                    " when met); null: not analysed (no HA, or a reserve of 0)"),
            failover_short=dict(common.BOOLEAN, description="the last cycle found the tolerance below"
                                " ha_failover_reserve (it warned insufficient_failover_capacity)"))
    if version >= microversion.LB_LEVEL:
        fields.update(lb_level_overridden=OVERRIDDEN)
    if version >= microversion.PORTAL_LISTS:
        fields.update(host_count=dict(common.INTEGER, minimum=0, description="how many hosts the newest"
                                      " snapshot with hosts lists in the aggregate (GET /v1/hypervisors"
                                      "?aggregate= lists them)"))
    return fields


AGGREGATES = reason.versioned(lambda version: common.collection("aggregates", common.obj(_item_fields(version))))


def latest_outcome(version):
    """What the newest finished cycle that judged the aggregate decided for it, and why (from 1.2)."""
    return {"type": ["object", "null"], "additionalProperties": False,
            "required": ["cycle_id", "cycle_status", "finished_at", "outcomes", "events"],
            "description": "the aggregate's own runs in the newest finished cycle that judged it"
                           " (never a running cycle, never another aggregate's); null before one",
            "properties": {"cycle_id": common.INTEGER, "cycle_status": cycle.STATUS,
                           "finished_at": common.OPT_TIMESTAMP,
                           "outcomes": {"type": "array", "items": cycle.outcome(version)},
                           "events": {"type": "array", "items": event.event_item(version)}}}


def _aggregate(version):
    fields = dict(_item_fields(version), current_event=event.optional_event_item(version))
    if version >= microversion.OUTCOMES_OF_EVERY_AGGREGATE:
        fields["latest_outcome"] = latest_outcome(version)
    return common.obj({"aggregate": common.obj(fields)})


AGGREGATE = reason.versioned(_aggregate)


def _patch(version):
    """The config fields a change may give at ``version``; turning NOOP on needs its reason in the same request."""
    return {"type": "object", "properties": config_fields(version), "additionalProperties": False,
            "minProperties": 1,
            "if": {"properties": {"no_op_mode": {"const": True}}, "required": ["no_op_mode"]},
            "then": {"required": ["no_op_reason"],
                     "properties": {"no_op_reason": common.VISIBLE_TEXT}}}


PATCH = reason.versioned(_patch)
