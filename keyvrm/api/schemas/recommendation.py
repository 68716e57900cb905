"""Schemas of recommendations (SPEC section 4) and their operations."""

from keyvrm.api import microversion
from keyvrm.api.schemas import common
from keyvrm.api.schemas import reason
from keyvrm.model import states

_FIELDS = {
    "id": common.STRING, "event_id": common.STRING,
    "action": {"type": "string", "enum": states.values(states.RecommendationAction)},
    "vm_id": common.STRING, "source_host": common.STRING, "target_host": common.OPT_STRING,
    "ha_round": common.OPT_INTEGER,
    "status": {"type": "string", "enum": states.values(states.RecommendationStatus)},
    "load_calculation": {"type": ["object", "null"],
                         "description": "LB: source/target before/after: cpu, ram, net, syn_score"},
    "reason": common.OPT_STRING, "attempts": common.INTEGER,
    "created_at": common.TIMESTAMP, "updated_at": common.TIMESTAMP,
    "started_at": common.OPT_TIMESTAMP, "finished_at": common.OPT_TIMESTAMP,
}
_KIND = {"type": "string", "enum": states.values(states.OperationKind)}
# From 1.9: the newest line of the recommendation's journal, read with it (no call per recommendation).
LATEST_OPERATION = dict(
    common.nullable(common.obj({"kind": _KIND, "attempt": common.INTEGER, "message": common.OPT_STRING,
                                "error": common.OPT_STRING, "created_at": common.TIMESTAMP})),
    description="the newest line of the recommendation's operations journal (the full journal is"
                " GET /v1/recommendations/{recommendation_id}/operations); null before its first")


def recommendation_item(version):
    """A recommendation's fields at ``version`` (1.9 adds its latest_operation)."""
    if version >= microversion.LATEST_OPERATION:
        return common.obj(dict(_FIELDS, latest_operation=LATEST_OPERATION))
    return common.obj(_FIELDS)


RECOMMENDATIONS = reason.versioned(lambda version: common.collection("recommendations",
                                                                     recommendation_item(version)))
RECOMMENDATION = reason.versioned(lambda version: common.obj({"recommendation": recommendation_item(version)}))
ACTION = {"type": "object", "additionalProperties": False, "properties": {}}

OPERATION_ITEM = common.obj({
    "id": common.INTEGER, "recommendation_id": common.STRING,
    "kind": _KIND,
    "attempt": common.INTEGER, "message": common.OPT_STRING, "error": common.OPT_STRING,
    "duration_s": common.OPT_NUMBER, "created_at": common.TIMESTAMP})
OPERATIONS = common.obj({"operations": {"type": "array", "items": OPERATION_ITEM}})
