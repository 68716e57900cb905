"""LBFlow: period check -> plan -> recommendations (auto: executor flows; manual: wait for an operator).

SPEC 6. LB runs only when ``lb_period`` passed since the aggregate's last LB run (timed
in the region's time: the run's snapshot). A run with nothing to do -- too early
(``lb_too_early``, which does not count as a run), nothing overloaded (``no_overload``),
or in HA+LB a cycle where HA recommended something (``ha_acted``) -- is recorded on the
cycle, not as an event: events are the runs that recommend something or fail. Auto
recommendations (``lb_recommendations_auto_run``) are handed to the dispatcher as
ExecutorFlows, which settle the event when the last one ends.
"""

from __future__ import annotations

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.executor import runner
from keyvrm.flows import context
from keyvrm.flows import events
from keyvrm.flows import recommend
from keyvrm.flows import screen
from keyvrm.flows import steps
from keyvrm.model import states
from keyvrm.planning import lb as lb_planning
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)
# Outcomes of LB runs that did not happen: they do not count for lb_period.
NOT_RUN = (reasons.LB_TOO_EARLY, reasons.HA_ACTED)


class OpenEvent(steps.FlowTask):
    """Whether LB runs this cycle (provides ``lb_due``); when it does not, the cycle records why.

    Not when HA recommended something in this HA+LB cycle (``ha_acted``), nor before
    ``lb_period`` has passed since the last run (``lb_too_early``, with the time of the
    next allowed run). Runs that planned nothing are recorded the same way by the next step.
    """

    def __init__(self, resources):
        super().__init__(resources, "lb_open_event", provides="lb_due")

    def execute(self, cycle_id, aggregate, snapshot_id, ha_created=0):
        res = self.resources
        recorded = db_api.get_cycle_outcome(res.db, cycle_id, aggregate, "LB")
        if recorded is not None or db_api.list_events(res.db, aggregate_name=aggregate, kind="LB",
                                                      cycle_id=cycle_id):
            # a re-run after a crash: what this cycle already recorded decides
            return recorded is None or recorded["reason_code"] not in NOT_RUN
        now_s = context.load_slice(res.db, snapshot_id, aggregate).taken_at
        if ha_created:
            LOG.info("aggregate %s: HA recommended %d evacuation(s) this cycle; no LB", aggregate, ha_created)
            _record(res, cycle_id, aggregate, now_s, [reasons.ha_acted(aggregate, ha_created)])
            return False
        agg_config = db_api.get_aggregate_config(res.db, aggregate)
        last_s = db_api.last_run_at(res.db, aggregate, "LB", skip_reason_codes=NOT_RUN)
        timing = lb_planning.lb_timing(last_s, None, now_s, agg_config.lb_period)
        if not timing.due:
            _record(res, cycle_id, aggregate, now_s, [reasons.lb_too_early(aggregate, timing.wait_s)],
                    next_run_s=now_s + timing.wait_s)
            return False
        return True


def _record(res, cycle_id, aggregate, now_s, found, next_run_s=None):
    """The run had nothing to do: its reasons go on the cycle, not into an event."""
    code, listed = events.describe(found)
    db_api.record_cycle_outcome(res.db, cycle_id, aggregate, "LB", code, listed, models.as_stored_time(now_s),
                                None if next_run_s is None else models.as_stored_time(next_run_s))


class PlanBalancing(steps.FlowTask):
    """Plan the migrations; an event with their recommendations, or the cycle records why there are none.

    Provides the recommendations' ids. A plan that found an error (e.g. mixed HugePages)
    is an event in the error state.
    """

    def __init__(self, resources):
        super().__init__(resources, "lb_plan", provides="lb_recommendation_ids")

    def execute(self, lb_due, cycle_id, aggregate, snapshot_id, busy_hosts=(), busy_vms=()):
        if not lb_due:
            return []
        res = self.resources
        if db_api.get_cycle_outcome(res.db, cycle_id, aggregate, "LB") is not None:
            return []  # a re-run: this cycle's run already recorded that it planned nothing
        own = db_api.list_events(res.db, aggregate_name=aggregate, kind="LB", cycle_id=cycle_id)
        if own and own[0]["status"] == states.EventStatus.COMPLETED:
            return []
        snapshot = context.load_slice(res.db, snapshot_id, aggregate)
        app_config, agg_config = context.configs(res.db, aggregate)
        busy = context.busy_now(res.db, busy_hosts, busy_vms, own[0]["id"] if own else None)
        since = models.as_stored_time(snapshot.taken_at - lb_planning.DEFAULT_COOLDOWN_S)
        moved = {vm_id: runner.as_posix(at) for vm_id, at in db_api.recent_moves(res.db, since).items()}
        failed = {move: runner.as_posix(at)
                  for move, at in db_api.recent_failed_migrations(res.db, since).items()}
        plan = lb_planning.plan_balancing(snapshot, app_config, agg_config, busy, recent_moves=moved,
                                          recent_failures=failed, now_s=snapshot.taken_at,
                                          max_rejected_hosts=res.conf.max_rejected_hosts,
                                          heartbeat_stale_after_s=res.conf.heartbeat_stale_after_s,
                                          failover_max_k=res.conf.failover_max_k,
                                          max_moves_per_host=lb_planning.move_cap(
                                              res.conf.executor.max_concurrent_per_host),
                                          overloaded_runs=screen.overloaded_runs(res.db, agg_config),
                                          moved_hosts={host: runner.as_posix(at) for host, at in
                                                       db_api.recent_moved_hosts(res.db, since).items()})
        return record_plan(res, cycle_id, snapshot_id, snapshot.taken_at, plan, app_config, agg_config)


def record_plan(res, cycle_id, snapshot_id, taken_at_s, plan, app_config, agg_config) -> list:
    """Record an LB run's plan; the ids of its recommendations.

    A plan with nothing to do is the cycle's outcome; any other is an event: with its
    recommendations (``manual_action``, or ``created`` to run at once with
    ``lb_recommendations_auto_run``), or completed in its state when it has none (an
    error such as mixed HugePages, or hosts nothing could relieve).
    """
    aggregate = agg_config.name
    state = states.EventState.ERROR if plan.is_error else reasons.state_of(plan.reasons)
    if not plan.moves and state == states.EventState.HEALTHY and reasons.nothing_to_do(plan.reasons):
        _record(res, cycle_id, aggregate, taken_at_s, plan.reasons)
        return []
    event_id = events.open_event(res.db, cycle_id, aggregate, "LB", agg_config.marker, snapshot_id)
    cap = res.conf.max_rejected_hosts
    if not plan.moves:
        events.complete_event(res.db, event_id, state, plan.reasons, max_rejected_hosts=cap)
        return []
    auto = app_config.lb_recommendations_auto_run
    events.add_reasons(res.db, event_id, plan.reasons, status=states.EventStatus.GENERATED, max_rejected_hosts=cap)
    ids = recommend.create_recommendations(res.db, event_id, plan.moves, auto_run=auto)
    db_api.set_event_status(res.db, event_id,
                            states.EventStatus.EXECUTING if auto else states.EventStatus.MANUAL_ACTION)
    LOG.info("aggregate %s: %d live migration(s) recommended (%s)", aggregate, len(ids),
             "auto" if auto else "manual")
    return ids


def start_executors(res, recommendation_ids) -> list:
    """Hand each auto recommendation (``created``) to an ExecutorFlow; the ids started."""
    started = []
    for rec_id in recommendation_ids:
        if db_api.get_recommendation(res.db, rec_id)["status"] == states.RecommendationStatus.CREATED:
            res.dispatcher.dispatch("executor", {"recommendation_id": rec_id})
            started.append(rec_id)
    return started


class StartExecutors(steps.FlowTask):
    """Hand each auto recommendation to an ExecutorFlow (manual ones wait for an operator)."""

    def __init__(self, resources):
        super().__init__(resources, "lb_start_executors", provides="lb_dispatched")

    def execute(self, lb_recommendation_ids):
        return start_executors(self.resources, lb_recommendation_ids)


def lb_tasks(resources) -> list:
    """The LBFlow's steps in order."""
    return [OpenEvent(resources), PlanBalancing(resources), StartExecutors(resources)]


def build(resources, **store):
    """The LBFlow of one aggregate (store: cycle_id, aggregate, snapshot_id, busy_hosts, busy_vms)."""
    return linear_flow.Flow("lb").add(*lb_tasks(resources))
