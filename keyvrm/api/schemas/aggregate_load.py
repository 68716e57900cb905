"""Schema of an aggregate's per-host load (GET /v1/aggregates/{name}/load)."""

from keyvrm.api.schemas import aggregate
from keyvrm.api.schemas import common

_OPT_PCT = common.OPT_NUMBER
_METRIC = {"type": "string", "enum": ["cpu", "ram", "net", "hugepages"]}
HOST_LOAD = common.obj(
    {"host": common.STRING, "cpu": _OPT_PCT, "ram": _OPT_PCT, "net": _OPT_PCT, "hugepages": _OPT_PCT,
     "syn_score": _OPT_PCT, "overloaded": common.BOOLEAN,
     "causes": {"type": "array", "items": common.STRING},
     "missing": {"type": "array", "items": _METRIC}, "vm_count": common.INTEGER},
    required=["host", "cpu", "ram", "net", "syn_score", "overloaded", "causes", "missing", "vm_count"])
AGGREGATE_LOAD = common.obj({"aggregate_load": common.obj({
    "aggregate": common.STRING, "snapshot_id": common.OPT_INTEGER, "taken_at": common.OPT_TIMESTAMP,
    "lb_weights": aggregate.WEIGHTS, "lb_overload_threshold": common.NUMBER,
    "lb_target_max_load": common.NUMBER, "lb_ceilings": aggregate.CEILINGS,
    "lb_hysteresis_pct": common.NUMBER, "hosts": {"type": "array", "items": HOST_LOAD}})})
