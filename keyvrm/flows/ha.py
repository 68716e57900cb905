"""HAFlow: detect -> mass-failure guard -> fence -> evacuate (two rounds) -> host outcome -> event.

SPEC 5. Detection and the guard are ``planning.ha.detect_failures``; a host is evacuated
only when ``fencing.step.fence_host`` confirmed it (every enabled fencer proved its
fence). Round 1 plans every VM of the fenced hosts from the cycle's snapshot; round 2
re-plans, from a fresh snapshot, only the VMs whose round-1 recommendation failed or was
cancelled because its target was lost before Nova was asked. An emptied host goes to
maintenance; one where VMs remain gets KeyVRM's error state and a record that its
remaining VMs are down with it (a stop is sent only where it can take effect, see
``executor.post``). Each step records its reasons on the event, so a run that
did nothing says why; a run with nothing to do (no failure, hosts already handled) is
recorded on the cycle instead and its empty event discarded. Every task may run again
after a crash without repeating what is recorded: the event is found by (cycle,
aggregate, kind), a recommendation by (event, VM, round), a host already given its
outcome by this event is left alone. A condemned host is
claimed by one atomic update before it is fenced, so two overlapping runs (cycles overlap
when evacuations take longer than the period) never both fence, stop or evacuate it.
"""

from __future__ import annotations

import dataclasses

from oslo_log import log as logging
from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.executor import post
from keyvrm.fencing import step
from keyvrm.flows import context
from keyvrm.flows import dead_work
from keyvrm.flows import events
from keyvrm.flows import harvest
from keyvrm.flows import lb
from keyvrm.flows import recommend
from keyvrm.flows import steps
from keyvrm.model import states
from keyvrm.planning import ha as ha_planning
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)


def alert_found(res, event_id, aggregate, found) -> None:
    """Send an HA alert per reason of detection or of a host's outcome that needs an operator.

    Errors (the guard, no fencer, a host that cannot be fenced, VMs left on a fenced
    host) go out as ``keyvrm.ha.error``, warnings (a live host with nova-compute down, a
    silent host awaiting Nova's verdict, a stale heartbeat path, a missing source) as
    ``keyvrm.ha.warning``. Fencing failures
    met while fencing are not passed here: they have ``keyvrm.fencing.error``; nor is
    ``insufficient_failover_capacity``: its alert is sent when it starts and clears.
    """
    if res.notifier is None:
        return
    for reason in found:
        error = reason.is_error or reason.code == reasons.VMS_REMAIN
        if not (error or reason.is_warning) or reason.code == reasons.INSUFFICIENT_FAILOVER_CAPACITY:
            continue
        payload = {"aggregate": aggregate, "event_id": event_id, "host": reason.host,
                   "reason_code": reason.code, "reason": reason.message,
                   "failed_at": res.clock.time()}
        (res.notifier.ha_error if error else res.notifier.ha_warning)(payload)


class OpenEvent(steps.FlowTask):
    """This cycle's HA event of the aggregate (found again after a crash)."""

    def __init__(self, resources):
        super().__init__(resources, "ha_open_event", provides="ha_event_id")

    def execute(self, cycle_id, aggregate, snapshot_id):
        agg = db_api.get_aggregate_config(self.resources.db, aggregate)
        return events.open_event(self.resources.db, cycle_id, aggregate, "HA", agg.marker, snapshot_id)


class DetectFailures(steps.FlowTask):
    """Hosts to fence now; with none, the event completes with the detection's reasons.

    When there was simply nothing to do, the cycle records it and the event is discarded.
    """

    def __init__(self, resources):
        super().__init__(resources, "ha_detect", provides="condemned")

    def execute(self, ha_event_id, cycle_id, aggregate, snapshot_id):
        res = self.resources
        if db_api.get_cycle_outcome(res.db, cycle_id, aggregate, "HA") is not None:
            return []  # a re-run: this cycle's run already found nothing to do
        snapshot = context.load_slice(res.db, snapshot_id, aggregate)
        app_config, _ = context.configs(res.db, aggregate)
        handled = db_api.claimed_hypervisors(res.db, excluding_event=ha_event_id)
        detection = ha_planning.detect_failures(
            snapshot, app_config, aggregate, heartbeat_stale_after_s=res.conf.heartbeat_stale_after_s,
            now_s=snapshot.taken_at, max_condemned_share=res.conf.max_condemned_share, handled=handled,
            service_down_time_s=res.conf.nova_service_down_time_s)
        found = list(detection.reasons)
        alert_found(res, ha_event_id, aggregate, found)
        to_fence = []
        for host in detection.to_fence:
            # one atomic claim per host: of two overlapping HA runs only one fences and evacuates it
            if db_api.claim_hypervisor(res.db, host, ha_event_id):
                to_fence.append(host)
            else:
                found.append(reasons.already_handled(host, db_api.get_hypervisor_state(res.db, host)["state"]))
        if not to_fence:
            state = reasons.state_of(found)
            if state == states.EventState.HEALTHY and reasons.nothing_to_do(found):  # the cycle says so, no event
                code, listed = events.describe(found)
                db_api.record_cycle_outcome(res.db, cycle_id, aggregate, "HA", code, listed,
                                            models.as_stored_time(snapshot.taken_at))
                db_api.discard_empty_event(res.db, ha_event_id)
            else:
                events.complete_event(res.db, ha_event_id, state, found)
            return []
        events.add_reasons(res.db, ha_event_id, found)
        LOG.info("aggregate %s: fencing %s", aggregate, ", ".join(to_fence))
        return to_fence


class FenceHosts(steps.FlowTask):
    """Fence every condemned host; provides those whose fence was confirmed (the only ones evacuated)."""

    def __init__(self, resources):
        super().__init__(resources, "ha_fence", provides="fenced")

    def execute(self, ha_event_id, aggregate, condemned):
        if not condemned:
            return []
        res = self.resources
        app_config = db_api.get_app_config(res.db)
        fencers = res.fencers(app_config)
        kwargs = fencers.as_kwargs() if fencers is not None else {}
        fenced, found = [], []
        for host in condemned:
            outcome = step.fence_host(host, app_config, clock=res.clock.time, **kwargs)
            record = [dataclasses.asdict(result) for result in outcome.results]
            if outcome.fenced:
                db_api.set_hypervisor_state(res.db, host, states.HypervisorState.FENCED, fencing=record,
                                            event_id=ha_event_id)
                fenced.append(host)
                continue
            why = "; ".join("%s: %s" % (r.fencer, r.message) for r in outcome.results if not r.confirmed)
            reason = (reasons.no_fencer() if outcome.reason == step.NO_FENCER
                      else reasons.fencing_impossible(host, why or outcome.reason))
            found.append(reason)
            db_api.set_hypervisor_state(res.db, host, states.HypervisorState.ERROR, reason=reason.message,
                                        fencing=record or None, event_id=ha_event_id)
            LOG.error("aggregate %s: host %s NOT fenced, it will not be evacuated: %s",
                      aggregate, host, reason.message)
            if res.notifier is not None:
                res.notifier.fencing_error({"host": host, "event_id": ha_event_id, "aggregate": aggregate,
                                            "reason": reason.message, "results": record})
        if not fenced:
            events.complete_event(res.db, ha_event_id, states.EventState.ERROR, found)
            return []
        events.add_reasons(res.db, ha_event_id, found)
        return fenced


def _create(res, event_id, plan, found_status=states.EventStatus.GENERATED):
    events.add_reasons(res.db, event_id, plan.reasons, status=found_status,
                       max_rejected_hosts=res.conf.max_rejected_hosts)
    ids = recommend.create_recommendations(res.db, event_id, plan.moves, auto_run=True)
    if ids:
        db_api.set_event_status(res.db, event_id, states.EventStatus.EXECUTING)
    return ids


class PlanFirstRound(steps.FlowTask):
    """Round 1: a recommendation per VM of the fenced hosts that has a target (SPEC 5.4).

    Work other runs hold on a fenced host cannot progress: it is ended first, and the
    evacuations other runs have in flight in the aggregate are let end (their targets are
    busy until then: ``dead_work.settle``); the plan is then made from a fresh snapshot (a
    VM an evacuation to the host brought there before it died is on it now).
    """

    def __init__(self, resources):
        super().__init__(resources, "ha_plan_round1", provides="round1_ids")

    def execute(self, ha_event_id, aggregate, snapshot_id, fenced):
        if not fenced:
            return []
        res = self.resources
        app_config, agg_config = context.configs(res.db, aggregate)
        for host in fenced:
            db_api.set_hypervisor_state(res.db, host, states.HypervisorState.EVACUATING, event_id=ha_event_id)
        settled = dead_work.settle(res.db, res.clock, fenced, ha_event_id, aggregate, res.conf.executor)
        # the work other runs held on a dead host ended after the cycle's snapshot: then plan from now
        snapshot = harvest.take_snapshot(res, app_config) if settled.found_any else \
            context.load_slice(res.db, snapshot_id, aggregate)
        busy = context.busy_for_evacuation(res.db, ha_event_id)
        plan = ha_planning.plan_evacuation(snapshot, app_config, agg_config, busy, fenced,
                                           allow_rebuild=res.conf.executor.allow_rebuild_local_disk,
                                           max_rejected_hosts=res.conf.max_rejected_hosts,
                                           heartbeat_stale_after_s=res.conf.heartbeat_stale_after_s)
        return _create(res, ha_event_id, plan)


def evacuate_orders(db, snapshot, recommendation_ids) -> dict:
    """{recommendation id: its VM's ``evacuate_order``} (None: no order), read from the snapshot.

    Round 2 re-plans VMs of round 1, so the cycle's snapshot knows every VM of both rounds.
    """
    order_of = {vm.id: vm.evacuate_order for vm in snapshot.vms}
    return {rec_id: order_of.get(db_api.get_recommendation(db, rec_id)["vm_id"])
            for rec_id in recommendation_ids}


class Execute(steps.FlowTask):
    """Run a round's recommendations side by side, in ``evacuate_order`` tiers; provides {id: status}."""

    def __init__(self, resources, ha_round):
        super().__init__(resources, "ha_execute_round%d" % ha_round, provides="round%d_statuses" % ha_round,
                         rebind={"recommendation_ids": "round%d_ids" % ha_round})

    def execute(self, recommendation_ids, aggregate, snapshot_id):
        res = self.resources
        if not recommendation_ids:
            return {}
        snapshot = context.load_slice(res.db, snapshot_id, aggregate)
        return recommend.run_all(res, recommendation_ids,
                                 evacuate_orders(res.db, snapshot, recommendation_ids))


def _target_lost(rec) -> bool:
    """Whether the executor cancelled this evacuation because its target became unusable.

    The pre-check found the target down, disabled or full before Nova was asked: the VM is
    still on its fenced host, so round 2 re-plans it like a failed one. An operator's
    cancel ("cancelled by ...") and any other cancel are respected.
    """
    return rec["status"] == states.RecommendationStatus.CANCELLED and (rec.get("reason") or "").startswith(
        "target %s " % rec["target_host"])


class PlanSecondRound(steps.FlowTask):
    """Round 2: the VMs whose round-1 evacuation failed or lost its target, fresh targets from a fresh snapshot."""

    def __init__(self, resources):
        super().__init__(resources, "ha_plan_round2", provides="round2_ids")

    def execute(self, ha_event_id, aggregate, fenced, round1_statuses):
        ended_badly = (states.RecommendationStatus.FAILED, states.RecommendationStatus.CANCELLED)
        unfinished = [rec_id for rec_id, status in round1_statuses.items() if status in ended_badly]
        if not unfinished:
            return []
        res = self.resources
        failed = {}
        for rec_id in unfinished:
            rec = db_api.get_recommendation(res.db, rec_id)
            if rec["status"] == states.RecommendationStatus.FAILED or _target_lost(rec):
                failed[rec["vm_id"]] = (rec["source_host"], rec["target_host"])
        if not failed:
            return []
        app_config, agg_config = context.configs(res.db, aggregate)
        fresh = harvest.take_snapshot(res, app_config)
        busy = context.busy_for_evacuation(res.db, ha_event_id)
        plan = ha_planning.replan_evacuation(fresh, app_config, agg_config, busy, fenced, failed,
                                             allow_rebuild=res.conf.executor.allow_rebuild_local_disk,
                                             max_rejected_hosts=res.conf.max_rejected_hosts,
                                             heartbeat_stale_after_s=res.conf.heartbeat_stale_after_s)
        return _create(res, ha_event_id, plan, found_status=states.EventStatus.EXECUTING)


class FinishHosts(steps.FlowTask):
    """Maintenance for each emptied host, else error state; remaining VMs recorded down (or stopped)."""

    def __init__(self, resources):
        super().__init__(resources, "ha_finish_hosts", provides="host_states")

    def execute(self, ha_event_id, aggregate, fenced, round2_statuses):
        if not fenced:
            return {}
        res = self.resources
        settings = res.conf.executor
        states, found = {}, []
        for host in fenced:
            remaining = sorted(vm.id for vm in res.cloud.list_servers_on(host) if vm.host == host)
            # a re-run finds what this event already recorded or asked for
            outcome = post.finish_evacuated_host(res.db, res.cloud, host, ha_event_id, remaining,
                                                 clock=res.clock, timeouts=settings.lifecycle_timeouts_s,
                                                 poll_interval_s=settings.poll_interval_s)
            states[host] = outcome.state
            if remaining:
                found.append(reasons.vms_remain(host, len(remaining), down=bool(outcome.down_vm_ids)))
            LOG.info("host %s: %s (%s)", host, outcome.state, outcome.reason)
        events.add_reasons(res.db, ha_event_id, found)
        alert_found(res, ha_event_id, aggregate, found)
        return states


class CloseEvent(steps.FlowTask):
    """Settle the HA event; provides how many evacuations HA recommended (HA+LB skips LB if any)."""

    def __init__(self, resources):
        super().__init__(resources, "ha_close_event", provides="ha_created")

    def execute(self, ha_event_id, condemned, round1_ids, round2_ids, host_states):
        if not condemned:
            return 0  # detection already completed the event, or recorded on the cycle there was none
        at_least = states.EventState.WARNING if states.HypervisorState.ERROR in host_states.values() else None
        events.settle(self.resources.db, ha_event_id, at_least=at_least)
        return len(round1_ids) + len(round2_ids)


def ha_tasks(resources) -> list:
    """The HAFlow's steps in order."""
    return [OpenEvent(resources), DetectFailures(resources), FenceHosts(resources),
            PlanFirstRound(resources), Execute(resources, 1), PlanSecondRound(resources),
            Execute(resources, 2), FinishHosts(resources), CloseEvent(resources)]


def build(resources, **store):
    """The HAFlow of one aggregate (store: cycle_id, aggregate, snapshot_id, busy_hosts, busy_vms)."""
    return linear_flow.Flow("ha").add(*ha_tasks(resources))


def build_ha_lb(resources, **store):
    """HA, then LB only if HA recommended nothing and ``lb_period`` passed (SPEC 3 step 6)."""
    return linear_flow.Flow("ha_lb").add(*ha_tasks(resources), *lb.lb_tasks(resources))
