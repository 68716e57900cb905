"""Schemas of recommendations (SPEC section 4) and their operations."""

from keyvrm.api.schemas import common
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
RECOMMENDATION_ITEM = common.obj(_FIELDS)
RECOMMENDATIONS = common.collection("recommendations", RECOMMENDATION_ITEM)
RECOMMENDATION = common.obj({"recommendation": RECOMMENDATION_ITEM})
ACTION = {"type": "object", "additionalProperties": False, "properties": {}}

OPERATION_ITEM = common.obj({
    "id": common.INTEGER, "recommendation_id": common.STRING,
    "kind": {"type": "string", "enum": states.values(states.OperationKind)},
    "attempt": common.INTEGER, "message": common.OPT_STRING, "error": common.OPT_STRING,
    "duration_s": common.OPT_NUMBER, "created_at": common.TIMESTAMP})
OPERATIONS = common.obj({"operations": {"type": "array", "items": OPERATION_ITEM}})
