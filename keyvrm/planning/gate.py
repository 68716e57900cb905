"""Which planners an aggregate's cycle runs, and why none when none (SPEC 3 step 6)."""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.planning import reasons


@dataclasses.dataclass(frozen=True, slots=True)
class Gate:
    """What one aggregate runs this cycle: HA, LB, or nothing with a reason."""

    run_ha: bool = False
    run_lb: bool = False
    reason: Optional[reasons.Reason] = None


def aggregate_gate(app_config, agg_config) -> Gate:
    """Decide from the business config alone whether HA and/or LB may run on an aggregate.

    KeyVRM disabled, NOOP mode and no marker each stop the aggregate with their own
    reason. HA needs a declared storage mode: without one an HA aggregate runs nothing
    and an HA+LB one runs LB only, with the reason ``storage_undeclared`` either way.
    LB's period and the "HA created nothing" rule of HA+LB are decided later by the
    flow, with ``lb.lb_timing``.
    """
    if not app_config.enabled:
        return Gate(reason=reasons.disabled())
    if not agg_config.marker:
        return Gate(reason=reasons.no_marker(agg_config.name))
    if agg_config.no_op_mode:
        return Gate(reason=reasons.noop(agg_config.name, agg_config.no_op_reason))
    if agg_config.runs_ha and agg_config.storage_mode is None:
        return Gate(run_lb=agg_config.runs_lb, reason=reasons.storage_undeclared(agg_config.name))
    return Gate(run_ha=agg_config.runs_ha, run_lb=agg_config.runs_lb)
