"""Screening: which aggregates have something to act on this cycle, decided in MasterFlow from their slices.

Most aggregates, most cycles, have nothing to do: no host failed, LB is too early or
finds nothing overloaded. Running a persisted TaskFlow flow for each of them only to
record that costs more than the decision itself (every task state written to the
database). So MasterFlow screens every aggregate with the planners' own functions on
the aggregate's slice -- HA detection (``planning.ha.detect_failures``), LB's period
(``planning.lb.lb_timing``) and LB's plan (``planning.lb.plan_balancing``) -- and
records the outcome of a quiet run on the cycle at once, as the flow would have
(``cycle_outcomes``: ``no_failure``, ``already_handled``, ``lb_too_early``,
``no_overload``, ...). An aggregate whose HA has something to fence, evacuate or report
(an alert, an error) gets its HAFlow (HA+LB: with LB after HA), which decides again from
the same slice, persisted and resumable as before. LB's plan is recorded at once (an
event with its recommendations, which wait for an operator or run in ExecutorFlows): an
LBFlow would only have planned again. A re-run of the screening after a crash finds the
outcomes and events it recorded and does not record them twice.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.executor import runner
from keyvrm.flows import events
from keyvrm.model import states
from keyvrm.planning import failover
from keyvrm.planning import ha as ha_planning
from keyvrm.planning import lb as lb_planning
from keyvrm.planning import reasons

# Outcomes of LB runs that did not happen: they do not count for lb_period.
LB_NOT_RUN = (reasons.LB_TOO_EARLY, reasons.HA_ACTED)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A quiet run's outcome, as the cycle records it."""

    aggregate: str
    kind: str  # HA, LB or NOOP
    reason_code: str
    reasons: dict  # the run's ReasonList, as stored (to_json)
    ran_at_s: float
    next_run_s: Optional[float] = None


def outcome_of(aggregate, kind, found, ran_at_s, next_run_s=None) -> Outcome:
    """The outcome of a run that had nothing to do, from the reasons it found."""
    code, listed = events.describe(found)
    return Outcome(aggregate, kind, code, listed, ran_at_s, next_run_s)


@dataclasses.dataclass
class CycleView:
    """What every aggregate's screening of one cycle reads from the database, read once."""

    cycle_id: int
    app_config: object
    busy: object  # BusySet: hosts and VMs of unfinished recommendations, now
    handled: dict  # host -> KeyVRM state of the hosts HA runs own or handled
    recorded: set  # (aggregate, kind) whose outcome this cycle already recorded
    with_events: set  # (aggregate, kind) that have an event in this cycle
    recent_moves: dict
    recent_failures: dict
    moved_hosts: dict  # host -> when (POSIX) KeyVRM's last move off or onto it ended, within the cool-down

    @classmethod
    def read(cls, db, cycle_id, app_config, busy, now_s) -> "CycleView":
        """Read the cycle's shared inputs (busy set, handled hosts, LB cool-downs, what it recorded)."""
        since = models.as_stored_time(now_s - lb_planning.DEFAULT_COOLDOWN_S)
        return cls(
            cycle_id=cycle_id, app_config=app_config, busy=busy,
            handled=db_api.claimed_hypervisors(db),
            recorded={(o["aggregate_name"], o["kind"]) for o in db_api.list_cycle_outcomes(db, cycle_id)},
            with_events={(e["aggregate_name"], e["kind"]) for e in db_api.list_events(db, cycle_id=cycle_id)},
            recent_moves={vm: runner.as_posix(at) for vm, at in db_api.recent_moves(db, since).items()},
            recent_failures={move: runner.as_posix(at)
                             for move, at in db_api.recent_failed_migrations(db, since).items()},
            moved_hosts={host: runner.as_posix(at) for host, at in db_api.recent_moved_hosts(db, since).items()})


def failover_of(view: CycleView, snapshot, agg_config, *, max_k, stale_after_s, max_rejected_hosts, cache=None):
    """The failover analysis of the aggregate this cycle (``planning.failover``, handled hosts left out).

    ``cache`` (the engine's ``failover.AnalysisCache``) reuses the analysis of unchanged inputs.
    Failure domains (racks) are not planned: the cycle records and alerts on the host
    tolerance only (the failover endpoint plans them on demand).
    """
    if max_k < 1:
        return None
    return failover.analyse_failover(snapshot, view.app_config, agg_config, busy=view.busy, max_k=max_k,
                                     heartbeat_stale_after_s=stale_after_s, max_rejected_hosts=max_rejected_hosts,
                                     handled=frozenset(view.handled), cache=cache, with_domains=False)


def screen_ha(view: CycleView, snapshot, aggregate, *, stale_after_s, service_down_time_s, max_condemned_share,
              failover_warning=None):
    """None when HA has something to do on ``aggregate`` (its flow runs), else the quiet outcome.

    A quiet outcome already recorded or an HA event already opened this cycle (a re-run)
    counts as decided: ``False`` is returned for those, meaning "nothing more to record".
    ``failover_warning`` (``insufficient_failover_capacity``) does not make HA act: a
    quiet outcome carries it first (its reason code), so a healthy aggregate short of its
    failover reserve says so on every cycle.
    """
    if (aggregate, "HA") in view.recorded:
        return False
    if (aggregate, "HA") in view.with_events:
        return None
    detection = ha_planning.detect_failures(
        snapshot, view.app_config, aggregate, heartbeat_stale_after_s=stale_after_s, now_s=snapshot.taken_at,
        max_condemned_share=max_condemned_share, handled=view.handled,
        service_down_time_s=service_down_time_s)
    found = list(detection.reasons)
    if detection.to_fence or reasons.state_of(found) != states.EventState.HEALTHY or not reasons.nothing_to_do(found):
        return None
    return outcome_of(aggregate, "HA", ([failover_warning] if failover_warning else []) + found, snapshot.taken_at)


@dataclasses.dataclass(frozen=True)
class LBScreen:
    """What screening found for LB: a quiet ``outcome``, a ``plan`` to record, or neither (decided before)."""

    outcome: Optional[Outcome] = None
    plan: Optional[object] = None  # planning.plan.Plan
    run_flow: bool = False  # an LB event of this cycle exists already (a re-run): its flow decides


def screen_lb(db, view: CycleView, snapshot, agg_config, *, max_rejected_hosts, stale_after_s,
              failover_max_k, max_moves_per_host) -> LBScreen:
    """LB's run on the aggregate this cycle: too early or quiet (an outcome), or the plan it made."""
    aggregate = agg_config.name
    if (aggregate, "LB") in view.recorded:
        return LBScreen()
    if (aggregate, "LB") in view.with_events:
        return LBScreen(run_flow=True)
    now_s = snapshot.taken_at
    last_s = db_api.last_run_at(db, aggregate, "LB", skip_reason_codes=LB_NOT_RUN)
    timing = lb_planning.lb_timing(last_s, None, now_s, agg_config.lb_period)
    if not timing.due:
        return LBScreen(outcome=outcome_of(aggregate, "LB", [reasons.lb_too_early(aggregate, timing.wait_s)],
                                           now_s, now_s + timing.wait_s))
    plan = lb_planning.plan_balancing(snapshot, view.app_config, agg_config, view.busy,
                                      recent_moves=view.recent_moves, recent_failures=view.recent_failures,
                                      now_s=now_s, max_rejected_hosts=max_rejected_hosts,
                                      heartbeat_stale_after_s=stale_after_s, failover_max_k=failover_max_k,
                                      max_moves_per_host=max_moves_per_host,
                                      overloaded_runs=overloaded_runs(db, agg_config), moved_hosts=view.moved_hosts)
    quiet = not plan.moves and not plan.is_error and reasons.state_of(plan.reasons) == states.EventState.HEALTHY \
        and reasons.nothing_to_do(plan.reasons)
    return LBScreen(outcome=outcome_of(aggregate, "LB", plan.reasons, now_s)) if quiet else LBScreen(plan=plan)


def overloaded_runs(db, agg_config) -> dict:
    """Host -> consecutive earlier LB runs of the aggregate that found it overloaded (``lb.overload_streaks``).

    Read only as far back as ``lb_persistence`` needs: nothing at 1 (LB acts on the first
    run). The runs' own recorded reasons are the record (``overloaded`` and
    ``lb_imbalance_pending`` name the hosts), so a re-run of a cycle counts nothing twice.
    """
    if agg_config.lb_persistence <= 1:
        return {}
    return lb_planning.overload_streaks(db_api.recent_run_hosts(
        db, agg_config.name, "LB", agg_config.lb_persistence - 1,
        (reasons.OVERLOADED, reasons.LB_IMBALANCE_PENDING), skip_reason_codes=LB_NOT_RUN))


def record(db, cycle_id, outcomes) -> None:
    """Record the quiet outcomes of a cycle (one transaction; those already recorded are left)."""
    db_api.record_cycle_outcomes(db, cycle_id, [
        dict(aggregate_name=o.aggregate, kind=o.kind, reason_code=o.reason_code, reasons=o.reasons,
             ran_at=models.as_stored_time(o.ran_at_s),
             next_run_at=None if o.next_run_s is None else models.as_stored_time(o.next_run_s))
        for o in outcomes])
