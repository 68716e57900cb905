"""LBFlow: period check -> plan -> recommendations (auto: executor flows; manual: wait for an operator).

SPEC 6. LB runs only when ``lb_period`` passed since the aggregate's last LB run (timed
in the region's time: the run's snapshot); a run that is too early is recorded as a
completed event with the ``lb_too_early`` reason, which does not count as a run. In
HA+LB, LB does not run at all in a cycle where HA recommended something. Auto
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
from keyvrm.flows import steps
from keyvrm.planning import lb as lb_planning
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)


class OpenEvent(steps.FlowTask):
    """This cycle's LB event, or None when HA acted in this HA+LB cycle; closes it when too early."""

    def __init__(self, resources):
        super().__init__(resources, "lb_open_event", provides="lb_event_id")

    def execute(self, cycle_id, aggregate, snapshot_id, ha_created=0):
        res = self.resources
        if ha_created:
            LOG.info("aggregate %s: HA recommended %d evacuation(s) this cycle; no LB", aggregate, ha_created)
            return None
        agg_config = db_api.get_aggregate_config(res.db, aggregate)
        now_s = context.load_snapshot(res.db, snapshot_id).taken_at
        last_s = db_api.last_run_at(res.db, aggregate, "LB", skip_reason_codes=(reasons.LB_TOO_EARLY,))
        own = [e for e in db_api.list_events(res.db, aggregate_name=aggregate, kind="LB", cycle_id=cycle_id)]
        if own:  # a re-run after a crash: this cycle's event is the last run
            return own[0]["id"]
        event_id = events.open_event(res.db, cycle_id, aggregate, "LB", agg_config.marker, snapshot_id)
        timing = lb_planning.lb_timing(last_s, None, now_s, agg_config.lb_period)
        if not timing.due:
            events.complete_event(res.db, event_id, "healthy", [reasons.lb_too_early(aggregate, timing.wait_s)])
            return None
        return event_id


class PlanBalancing(steps.FlowTask):
    """Plan the migrations and create their recommendations; provides their ids."""

    def __init__(self, resources):
        super().__init__(resources, "lb_plan", provides="lb_recommendation_ids")

    def execute(self, lb_event_id, aggregate, snapshot_id, busy_hosts=(), busy_vms=()):
        if lb_event_id is None:
            return []
        res = self.resources
        if db_api.get_event_summary(res.db, lb_event_id)["status"] == "completed":
            return []
        snapshot = context.load_snapshot(res.db, snapshot_id)
        app_config, agg_config = context.configs(res.db, aggregate)
        busy = context.busy_now(res.db, busy_hosts, busy_vms, lb_event_id)
        since = models.as_stored_time(snapshot.taken_at - lb_planning.DEFAULT_COOLDOWN_S)
        moved = {vm_id: runner.as_posix(at) for vm_id, at in db_api.recent_moves(res.db, since).items()}
        plan = lb_planning.plan_balancing(snapshot, app_config, agg_config, busy, recent_moves=moved,
                                          now_s=snapshot.taken_at)
        if not plan.moves:
            events.complete_event(res.db, lb_event_id, "error" if plan.is_error else "healthy", plan.reasons)
            return []
        auto = app_config.lb_recommendations_auto_run
        events.add_reasons(res.db, lb_event_id, plan.reasons, status="generated")
        ids = recommend.create_recommendations(res.db, lb_event_id, plan.moves, auto_run=auto)
        db_api.set_event_status(res.db, lb_event_id, "executing" if auto else "manual_action")
        LOG.info("aggregate %s: %d live migration(s) recommended (%s)", aggregate, len(ids),
                 "auto" if auto else "manual")
        return ids


class StartExecutors(steps.FlowTask):
    """Hand each auto recommendation to an ExecutorFlow (manual ones wait for an operator)."""

    def __init__(self, resources):
        super().__init__(resources, "lb_start_executors", provides="lb_dispatched")

    def execute(self, lb_recommendation_ids):
        res = self.resources
        started = []
        for rec_id in lb_recommendation_ids:
            if db_api.get_recommendation(res.db, rec_id)["status"] == "created":
                res.dispatcher.dispatch("executor", {"recommendation_id": rec_id})
                started.append(rec_id)
        return started


def lb_tasks(resources) -> list:
    """The LBFlow's steps in order."""
    return [OpenEvent(resources), PlanBalancing(resources), StartExecutors(resources)]


def build(resources, **store):
    """The LBFlow of one aggregate (store: cycle_id, aggregate, snapshot_id, busy_hosts, busy_vms)."""
    return linear_flow.Flow("lb").add(*lb_tasks(resources))
