"""MasterFlow: one cycle (SPEC 3): config, busy set, harvest, per-aggregate flows, executors.

Steps: start the cycle record; read ``app_config`` (disabled: the cycle is recorded as
skipped with its reason and nothing else runs); cancel manual recommendations nobody
started in time; return the hosts an operator released to service (``restore``); collect
the busy set (hosts and VMs of unfinished recommendations); HarvesterFlow (snapshot
stored, aggregates synced with Nova); per aggregate, the gate decides whether HA, LB or
both may run, and ``screen`` decides from the aggregate's slice whether they have
anything to do: quiet runs are recorded on the cycle at once, the others get their
HAFlow, LBFlow or HA+LB flow with the cycle's snapshot; the drains operators asked for
(``drain``) and the failbacks of hosts returned to service (``failback``); ExecutorFlows for ``created``
live migrations an operator started or an earlier cycle left; the cycle is completed with
the sources that failed (``sources_failed``) and the reason of every aggregate it did not
process, or ``all_processed`` when every aggregate ran and every source answered.
The schedule itself follows ``app_config.period`` in the engine, read at each tick.
"""

from __future__ import annotations

import dataclasses

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.executor import manual
from keyvrm.executor import runner
from keyvrm.flows import context
from keyvrm.flows import drain
from keyvrm.flows import events
from keyvrm.flows import failback
from keyvrm.flows import harvest
from keyvrm.flows import lb
from keyvrm.flows import restore
from keyvrm.flows import screen
from keyvrm.flows import steps
from keyvrm.model import snapshot as m
from keyvrm.model import states
from keyvrm.planning import failover
from keyvrm.planning import gate
from keyvrm.planning import lb as lb_planning
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)

# A cycle whose snapshot misses a source: its decisions had less evidence (HA fences nothing on it).
SOURCES_FAILED = "sources_failed"
# A completed cycle that processed every aggregate with every source answering: its reason says so
# (each aggregate's run is on its event or the cycle's outcomes), so no finished cycle is without one.
ALL_PROCESSED = "all_processed"
# Events waiting for an operator whose work ended that one cycle settles (oldest first).
WAITING_EVENTS_PER_CYCLE = 1000
MIGRATIONS = (states.RecommendationAction.LIVE_MIGRATE, states.RecommendationAction.COLD_MIGRATE)


def failover_payload(aggregate, analysis, reserve, warning, now_s) -> dict:
    """The ``keyvrm.ha.failover_capacity`` alert: the shortfall starting (``warning``) or cleared (None)."""
    return {"aggregate": aggregate, "cleared": warning is None,
            "reason_code": reasons.INSUFFICIENT_FAILOVER_CAPACITY,
            "reason": warning.message if warning is not None else
            "aggregate %s is back within its failover reserve of %d" % (aggregate, reserve),
            "tolerance": None if analysis is None else analysis.tolerance, "reserve": reserve,
            "hosts_at_risk": [] if analysis is None else list(analysis.hosts_at_risk),
            "vms_without_target": 0 if analysis is None else analysis.vms_without_target,
            "failed_at": now_s}


def flow_of(decision) -> str:
    """The registered flow an aggregate's gate decision runs: ha_lb, ha, lb or noop."""
    if decision.run_ha:
        return "ha_lb" if decision.run_lb else "ha"
    return "lb" if decision.run_lb else "noop"


class StartCycle(steps.FlowTask):
    """Take the oldest cycle an operator requested, else record a new one (provides ``cycle_id``).

    A failed MasterFlow marks its cycle failed on revert.
    """

    def __init__(self, resources):
        super().__init__(resources, "start_cycle", provides="cycle_id")

    def execute(self):
        db = self.resources.db
        requested = db_api.claim_requested_cycle(db)
        return requested if requested is not None else db_api.start_cycle(db)

    def revert(self, result=None, flow_failures=None, **kwargs):
        if not isinstance(result, int):
            return
        why = "; ".join(str(f.exception) for f in (flow_failures or {}).values()) or "MasterFlow failed"
        db_api.finish_cycle(self.resources.db, result, states.CycleStatus.FAILED, reason_code="flow_failed",
                            reason=why[:2000])


class ReadConfig(steps.FlowTask):
    """Whether KeyVRM is enabled; a disabled cycle is recorded as skipped, each aggregate's outcome saying so."""

    def __init__(self, resources):
        super().__init__(resources, "read_config", provides="enabled")

    def execute(self, cycle_id):
        db = self.resources.db
        if db_api.get_app_config(db).enabled:
            return True
        reason = reasons.disabled()
        now_s = self.resources.clock.time()
        screen.record(db, cycle_id, [screen.outcome_of(record.config.name, "NOOP", [reason], now_s)
                                     for record in db_api.list_aggregates(db)])
        db_api.finish_cycle(db, cycle_id, states.CycleStatus.SKIPPED, reason_code=reason.code, reason=reason.message)
        LOG.info("cycle %s skipped: %s", cycle_id, reason.message)
        return False


class CancelExpiredManual(steps.FlowTask):
    """Cancel manual recommendations not started within ``executor_manual_action_timeout``; settle their events.

    Also settles every event still waiting for an operator (``manual_action``) whose
    recommendations all ended meanwhile, e.g. cancelled through the API: the API records
    the cancel and casts to the engine, and a lost cast must not leave the event open.
    """

    def __init__(self, resources):
        super().__init__(resources, "cancel_expired_manual", provides="cancelled_manual")

    def execute(self, enabled):
        if not enabled:
            return []
        res = self.resources
        timeout_s = db_api.get_app_config(res.db).executor_manual_action_timeout * 60.0
        cancelled = manual.cancel_expired_manual(res.db, res.clock.time(), timeout_s)
        waiting = set(db_api.waiting_events_without_open_work(res.db, WAITING_EVENTS_PER_CYCLE))
        for event_id in {db_api.get_recommendation(res.db, rec_id)["event_id"] for rec_id in cancelled} | waiting:
            events.settle(res.db, event_id)
        return cancelled


class CollectBusy(steps.FlowTask):
    """Hosts and VMs unfinished recommendations touch: nothing new is planned on them."""

    def __init__(self, resources):
        super().__init__(resources, "collect_busy", provides=("busy_hosts", "busy_vms"))

    def execute(self, enabled):
        if not enabled:
            return [], []
        busy = db_api.busy_set(self.resources.db)
        return sorted(busy.hosts), sorted(busy.vms)


class DispatchAggregates(steps.FlowTask):
    """Screen every aggregate; start the flows of those with something to do; provides what happened.

    ``fast_aggregates`` (the fast path's): only these aggregates, and HA only.
    LB's plans are recorded here (``flows.lb.record_plan``), not in LBFlows.
    Provides ``{"flows": {aggregate: flow}, "not_processed": [why, ...], "quiet": n,
    "processed": n}``: the flow each acting aggregate was given, the reasons of the
    aggregates the gate stopped (NOOP, no marker, undeclared storage), how many runs were
    quiet (their outcomes recorded on the cycle by ``screen``, no flow) and how many
    aggregates HA or LB looked at.
    """

    def __init__(self, resources):
        super().__init__(resources, "dispatch_aggregates", provides="aggregate_flows")

    def execute(self, enabled, cycle_id, snapshot_id, busy_hosts, busy_vms, fast_aggregates=None):
        if not enabled or snapshot_id is None:
            return {}
        res = self.resources
        app_config = db_api.get_app_config(res.db)
        busy = m.BusySet(hosts=frozenset(busy_hosts), vms=frozenset(busy_vms))
        taken_at = db_api.get_snapshot_summary(res.db, snapshot_id)["taken_at"]
        view = screen.CycleView.read(res.db, cycle_id, app_config, busy, runner.as_posix(taken_at))
        flows, skipped, quiet, screened = {}, [], [], 0
        for record in db_api.list_aggregates(res.db):
            agg = record.config
            if fast_aggregates is not None and agg.name not in fast_aggregates:
                continue
            decision = gate.aggregate_gate(app_config, agg)
            if fast_aggregates is not None:  # the fast path judges failures, LB waits for its cycle
                decision = dataclasses.replace(decision, run_lb=False)
            if decision.reason is not None:
                skipped.append("%s: [%s] %s" % (agg.name, decision.reason.code, decision.reason.message))
            screened += decision.run_ha or decision.run_lb
            name = self._screen(view, decision, record, snapshot_id, quiet, fast_aggregates is None)
            if name is not None:
                res.dispatcher.dispatch(name, {"cycle_id": cycle_id, "aggregate": agg.name,
                                               "snapshot_id": snapshot_id, "busy_hosts": list(busy_hosts),
                                               "busy_vms": list(busy_vms)})
                flows[agg.name] = name
        screen.record(res.db, cycle_id, quiet)
        LOG.info("cycle %s: %d aggregate flow(s) started, %d quiet run(s) recorded, %d aggregate(s) not "
                 "processed", cycle_id, len(flows), len(quiet), len(skipped))
        return {"flows": flows, "not_processed": skipped, "quiet": len(quiet), "processed": screened}

    def _screen(self, view, decision, record, snapshot_id, quiet, periodic):
        """The flow ``record``'s aggregate needs this cycle (None: none); quiet outcomes are appended to ``quiet``.

        A periodic cycle (not the fast path) also analyses the failover capacity of an
        aggregate HA runs on, and alerts when it falls below its reserve or recovers.
        """
        res = self.resources
        agg = record.config
        snapshot = context.load_slice(res.db, snapshot_id, agg.name)
        if decision.reason is not None:  # not processed, or HA not (HA+LB without a storage mode)
            kind = "HA" if decision.run_lb else "NOOP"
            if (agg.name, kind) not in view.recorded:
                quiet.append(screen.outcome_of(agg.name, kind, [decision.reason], snapshot.taken_at))
        if not (decision.run_ha or decision.run_lb):
            return None
        stale_after_s = res.conf.heartbeat_stale_after_s
        ha_acts = False
        if decision.run_ha:
            warning = None
            if periodic and (agg.name, "HA") not in view.recorded:
                warning = self._failover_warning(view, record, snapshot, stale_after_s)
            outcome = screen.screen_ha(view, snapshot, agg.name, stale_after_s=stale_after_s,
                                       max_condemned_share=res.conf.max_condemned_share, failover_warning=warning)
            ha_acts = outcome is None
            if outcome:
                quiet.append(outcome)
        if ha_acts:
            return flow_of(decision)  # HA+LB decides LB after HA, in the flow
        if decision.run_lb:
            found = screen.screen_lb(res.db, view, snapshot, agg, max_rejected_hosts=res.conf.max_rejected_hosts,
                                     stale_after_s=stale_after_s, failover_max_k=res.conf.failover_max_k,
                                     max_moves_per_host=lb_planning.move_cap(res.conf.executor.max_concurrent_per_host))
            if found.run_flow:
                return "lb"
            if found.outcome is not None:
                quiet.append(found.outcome)
            if found.plan is not None:
                self._record_plan(view, agg, snapshot, snapshot_id, found.plan)
        return None

    def _failover_warning(self, view, record, snapshot, stale_after_s):
        """``insufficient_failover_capacity`` if the aggregate is short of its reserve; alerts on a change.

        The search stops at the reserve (a reserve of 1 plans single hosts only; 0 plans
        nothing): only whether the tolerance reaches it is decided here.
        """
        res = self.resources
        agg = record.config
        analysis = screen.failover_of(view, snapshot, agg, max_k=min(res.conf.failover_max_k, agg.ha_failover_reserve),
                                      stale_after_s=stale_after_s, max_rejected_hosts=res.conf.max_rejected_hosts,
                                      cache=res.failover_cache)
        warning = None if analysis is None else failover.shortfall(analysis, agg.ha_failover_reserve)
        short = warning is not None
        tolerance = None if analysis is None else analysis.tolerance
        if ((short, tolerance) != (record.failover_short, record.failover_tolerance)
                and db_api.set_failover(res.db, agg.name, short, tolerance)):
            LOG.info("aggregate %s: failover capacity %s", agg.name, "below its reserve" if short else "restored")
            if res.notifier is not None:
                res.notifier.failover_capacity(failover_payload(
                    agg.name, analysis, agg.ha_failover_reserve, warning, res.clock.time()))
        return warning

    def _record_plan(self, view, agg, snapshot, snapshot_id, plan):
        """An LB plan's event and recommendations, auto ones started; its hosts and VMs busy from now on."""
        res = self.resources
        ids = lb.record_plan(res, view.cycle_id, snapshot_id, snapshot.taken_at, plan, view.app_config, agg)
        lb.start_executors(res, ids)
        moved_hosts = {h for move in plan.moves for h in (move.source, move.target) if h}
        view.busy = m.BusySet(hosts=view.busy.hosts | moved_hosts,
                              vms=view.busy.vms | {move.vm_id for move in plan.moves})


class DispatchExecutors(steps.FlowTask):
    """ExecutorFlows for ``created`` live and cold migrations of earlier cycles (operator-started or left over)."""

    def __init__(self, resources):
        super().__init__(resources, "dispatch_executors", provides="executors_dispatched")

    def execute(self, enabled, cycle_id):
        if not enabled:
            return []
        res = self.resources
        this_cycle = {e["id"] for e in db_api.list_events(res.db, cycle_id=cycle_id)}
        started = []
        for rec in db_api.list_recommendations(res.db, status=states.RecommendationStatus.CREATED):
            if rec["action"] in MIGRATIONS and rec["event_id"] not in this_cycle:
                res.dispatcher.dispatch("executor", {"recommendation_id": rec["id"]})
                started.append(rec["id"])
        return started


class FinishCycle(steps.FlowTask):
    """Complete the cycle with its snapshot and why aggregates were not processed."""

    def __init__(self, resources):
        super().__init__(resources, "finish_cycle", provides="cycle_status")

    def execute(self, enabled, cycle_id, snapshot_id, aggregate_flows):
        if not enabled:
            return states.CycleStatus.SKIPPED
        db = self.resources.db
        sources = db_api.get_snapshot_summary(db, snapshot_id)["sources"]
        failed = ["%s failed: %s" % (name, status.get("error") or "no answer")
                  for name, status in sorted(sources.items()) if not status.get("ok")]
        skipped = aggregate_flows.get("not_processed") or []
        code = SOURCES_FAILED if failed else ("aggregates_not_processed" if skipped else ALL_PROCESSED)
        text = "; ".join((["[%s] %s" % (SOURCES_FAILED, ", ".join(failed))] if failed else []) + skipped)
        if code == ALL_PROCESSED:
            processed = aggregate_flows.get("processed", len(aggregate_flows.get("flows") or {}))
            text = "every aggregate processed (%d): each run's outcome is on its event or the cycle's outcomes" \
                % processed
        db_api.finish_cycle(db, cycle_id, states.CycleStatus.COMPLETED, reason_code=code, reason=text[:8000] or None,
                            snapshot_id=snapshot_id)
        return states.CycleStatus.COMPLETED


def build(resources, **store):
    """The MasterFlow of one cycle (empty store)."""
    return linear_flow.Flow("master").add(
        StartCycle(resources), ReadConfig(resources), CancelExpiredManual(resources),
        restore.ReturnHostsToService(resources), CollectBusy(resources),
        harvest.build(resources), DispatchAggregates(resources), drain.DrainHosts(resources),
        failback.PlanFailbacks(resources), DispatchExecutors(resources),
        FinishCycle(resources))
