"""Schemas of cycles (MasterFlow runs, with the reason when nothing was done, per aggregate too)."""

from keyvrm.api import microversion
from keyvrm.api.schemas import common
from keyvrm.api.schemas import reason
from keyvrm.model import states

STATUS = {"type": "string", "enum": states.values(states.CycleStatus)}
_FIELDS = {"id": common.INTEGER, "status": STATUS, "reason_code": common.OPT_STRING,
           "reason": common.OPT_STRING, "snapshot_id": common.OPT_INTEGER,
           "started_at": common.TIMESTAMP, "finished_at": common.OPT_TIMESTAMP}
CYCLE_ITEM = common.obj(_FIELDS)
CYCLES = common.collection("cycles", CYCLE_ITEM)


def outcome(version):
    """An aggregate's run that had nothing to do, kept on the cycle, not as an event, at ``version``.

    Too early, nothing overloaded, no failure, hosts already handled, HA acted in HA+LB;
    from 1.2 also kind NOOP: why the aggregate was not processed (NOOP, no marker,
    KeyVRM disabled, HA without a storage mode).
    """
    kinds = ["HA", "LB"] if version < microversion.OUTCOMES_OF_EVERY_AGGREGATE \
        else states.values(states.OutcomeKind)
    return common.obj(dict({"aggregate_name": common.STRING, "kind": {"type": "string", "enum": kinds},
                            "reason_code": common.STRING, "ran_at": common.TIMESTAMP,
                            "next_run_at": common.OPT_TIMESTAMP}, **reason.fields(version, common.STRING)))


CYCLE = reason.versioned(lambda version: common.obj({"cycle": common.obj(dict(
    _FIELDS, event_count=common.INTEGER, outcomes={"type": "array", "items": outcome(version)}))}))
REQUEST = {"type": "object", "additionalProperties": False, "properties": {}}
