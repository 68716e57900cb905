"""Drains: hosts an operator takes out of service (``POST /v1/hypervisors/{name}/drain``) emptied by live migrations.

Each cycle, after the aggregates' flows were started (HA first: a host whose aggregate
got an HA flow this cycle waits for the next one), for each host KeyVRM drains:

- ``draining`` with no drain event yet: its compute service is disabled with the
  operator's reason ("KeyVRM drain: ..."), so Nova schedules nothing new there; the
  drain is planned from the cycle's snapshot (``planning.drain``) and recorded as an
  event of kind ``drain`` whose live migrations run at once through the executor
  (the per-host and per-region bounds of ``[executor]`` apply); the VMs that stay are
  the event's reasons.
- ``draining`` whose drain event has no open recommendation any more: the host is
  ``maintenance`` when no VM is left on it (the snapshot's VMs less those the drain moved
  since), else ``drain_incomplete`` naming them; the operator decides. A drain asked
  with ``allow_cold`` (API 1.11) cold-migrates from the start the stopped VMs
  (``planning.drain``), and first gives the VMs left whose live migration in that event
  failed a cold round: a second event of kind ``drain``, planned from a snapshot taken
  after those migrations ended (else at the next cycle), that cold-migrates them with
  the same target choice (its reasons say it follows the first event); the drain ends
  when the cold round's moves have.
- ``drain_incomplete``: ``maintenance`` once no VM is left (moved by hand, deleted).

Returning a draining host to service cancels the drain's moves that have not started
(``request_hypervisor_restore``); the restore step enables the service again.
"""

from __future__ import annotations

import functools

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.db import models
from keyvrm.drivers import errors
from keyvrm.executor import runner
from keyvrm.flows import context
from keyvrm.flows import events
from keyvrm.flows import lb
from keyvrm.flows import recommend
from keyvrm.flows import steps
from keyvrm.model import snapshot as m
from keyvrm.model import states
from keyvrm.planning import drain as drain_planning
from keyvrm.planning import lb as lb_planning
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)

DISABLED_REASON_PREFIX = "KeyVRM drain: "
_H = states.HypervisorState
_LIVE, _COLD = states.RecommendationAction.LIVE_MIGRATE, states.RecommendationAction.COLD_MIGRATE


class DrainHosts(steps.FlowTask):
    """Plan, follow and end the drains of the cycle (see the module docstring); provides {host: state}."""

    def __init__(self, resources):
        super().__init__(resources, "drain_hosts", provides="drains")

    def execute(self, enabled, cycle_id, snapshot_id, aggregate_flows, busy_hosts=(), busy_vms=()):
        if not enabled or snapshot_id is None:
            return {}
        res, done = self.resources, {}
        acting = {name for name, flow in (aggregate_flows.get("flows") or {}).items() if flow != "lb"}
        for host, state, reason, event_id, allow_cold in db_api.list_hypervisors_draining(res.db):
            drain = _Drain(host, reason, allow_cold)
            try:
                done[host] = self._drain(drain, state, event_id, cycle_id, snapshot_id, acting, busy_hosts, busy_vms)
            except errors.DriverError as error:  # one host's Nova error must not stop the cycle
                LOG.warning("drain of %s: %s", host, error)
                done[host] = state
        return done

    def _drain(self, drain, state, event_id, cycle_id, snapshot_id, acting, busy_hosts, busy_vms):
        res, host = self.resources, drain.host
        aggregate = aggregate_of(res.db, host)
        if aggregate is None:
            db_api.set_hypervisor_state(res.db, host, state, reason=_with_note(
                drain.reason, "waiting: the host is in no aggregate KeyVRM knows"), event_id=event_id)
            return state
        snapshot = context.load_slice(res.db, snapshot_id, aggregate)
        on_host = {vm.id for vm in snapshot.index().vms_on(host)}
        if state == _H.DRAIN_INCOMPLETE:
            left = on_host - _moved_by(res.db, event_id)
            return self._end(host, event_id, left) if not left else state
        plan_with = functools.partial(self._plan, drain, aggregate, snapshot, cycle_id, snapshot_id,
                                      busy_hosts, busy_vms)
        if event_id is None:
            if aggregate in acting:
                LOG.info("drain of %s waits: HA runs on aggregate %s this cycle", host, aggregate)
                return state
            res.cloud.disable_service(host, DISABLED_REASON_PREFIX + drain.operator_reason)
            return plan_with()
        recs = db_api.list_recommendations(res.db, event_id=event_id)
        if any(r["status"] not in states.RECOMMENDATION_FINAL for r in recs):
            return state
        left = on_host - _moved_by(res.db, event_id)
        live_failed = frozenset(r["vm_id"] for r in recs if r["action"] == states.RecommendationAction.LIVE_MIGRATE
                                and r["status"] == states.RecommendationStatus.FAILED) & left
        if not (drain.allow_cold and live_failed):
            return self._end(host, event_id, left)
        if snapshot.taken_at < max(runner.as_posix(r["finished_at"]) for r in recs if r["finished_at"]):
            LOG.info("drain of %s: its cold round waits for a snapshot taken after its live migrations", host)
            return state
        return plan_with(live_failed=live_failed, after_event=event_id)

    def _plan(self, drain, aggregate, snapshot, cycle_id, snapshot_id, busy_hosts, busy_vms,
              live_failed=frozenset(), after_event=None):
        """Record a drain event with its moves and start them: every VM of the host, or a cold round.

        The cold round (``after_event``, the drain's previous event) plans the VMs of
        ``live_failed`` only.
        """
        res, host = self.resources, drain.host
        app_config, agg_config = context.configs(res.db, aggregate)
        busy = context.busy_now(res.db, busy_hosts, busy_vms, None)
        since = models.as_stored_time(snapshot.taken_at - lb_planning.DEFAULT_COOLDOWN_S)
        failed = {action: {move: runner.as_posix(at) for move, at in db_api.recent_failed_migrations(
            res.db, since, action=action).items()} for action in (_LIVE, _COLD)}
        plan = drain_planning.plan_drain(
            snapshot, app_config, agg_config, host, m.BusySet(hosts=busy.hosts, vms=busy.vms),
            allow_cold=drain.allow_cold, live_failed=live_failed, only=live_failed if after_event else None,
            recent_failures=failed[_LIVE], recent_cold_failures=failed[_COLD], now_s=snapshot.taken_at,
            max_rejected_hosts=res.conf.max_rejected_hosts, after_event=after_event)
        event_id = events.open_event(res.db, cycle_id, aggregate, states.EventKind.DRAIN, agg_config.marker,
                                     snapshot_id)
        db_api.set_hypervisor_state(res.db, host, _H.DRAINING, reason=drain.reason, event_id=event_id)
        cap = res.conf.max_rejected_hosts
        if not plan.moves:
            events.add_reasons(res.db, event_id, plan.reasons, max_rejected_hosts=cap)
            return self._end(host, event_id, {vm.id for vm in snapshot.index().vms_on(host)})
        events.add_reasons(res.db, event_id, plan.reasons, status=states.EventStatus.GENERATED,
                           max_rejected_hosts=cap)
        ids = recommend.create_recommendations(res.db, event_id, plan.moves, auto_run=True)
        db_api.set_event_status(res.db, event_id, states.EventStatus.EXECUTING)
        cold = sum(1 for move in plan.moves if move.action == _COLD)
        LOG.info("drain of %s: %d live and %d cold migration(s) started, %d VM(s) stay", host, len(ids) - cold,
                 cold, len(live_failed if after_event else snapshot.index().vms_on(host)) - len(ids))
        lb.start_executors(res, ids)
        return _H.DRAINING

    def _end(self, host, event_id, left) -> str:
        """``maintenance`` when nothing is ``left`` on the host, else ``drain_incomplete`` naming the VMs."""
        res = self.resources
        if left:
            found, state = reasons.drain_incomplete(host, left), _H.DRAIN_INCOMPLETE
        else:
            found, state = reasons.drained(host), _H.MAINTENANCE
        if event_id is not None:  # completed (its moves settled it) or not: it ends in the drain's state
            events.complete_event(res.db, event_id, states.EventState.WARNING if left else _settled_state(
                res.db, event_id), [found])
        db_api.set_hypervisor_state(res.db, host, state, reason=found.message, event_id=event_id)
        (LOG.warning if left else LOG.info)("drain of %s ended: %s", host, found.message)
        return state


class _Drain:
    """One host's drain as the operator asked for it: its state row's reason, and whether it may go cold."""

    def __init__(self, host, reason, allow_cold):
        self.host, self.reason, self.allow_cold = host, reason, bool(allow_cold)

    @property
    def operator_reason(self) -> str:
        """The operator's own words ("drain requested by X[ (...)]: <these>")."""
        return (self.reason or "").split(": ", 1)[-1]


def aggregate_of(db, host):
    """The first aggregate of ``host`` KeyVRM knows (its config gives the drain's target limits), or None."""
    known = {record.config.name for record in db_api.list_aggregates(db)}
    aggregates = hypervisors_db.get_hypervisor(db, host).get("aggregates") or ()
    return next((name for name in aggregates if name in known), None)


def _settled_state(db, event_id) -> str:
    """The state the drain event's moves gave it (healthy when it had none)."""
    return db_api.get_event_summary(db, event_id).get("state") or states.EventState.HEALTHY


def _moved_by(db, event_id) -> set:
    """The VMs whose live migration of drain event ``event_id`` succeeded."""
    if event_id is None:
        return set()
    return {r["vm_id"] for r in db_api.list_recommendations(db, event_id=event_id)
            if r["status"] == states.RecommendationStatus.SUCCEEDED}


def _with_note(reason, note):
    return "%s (%s)" % ((reason or "").split(" (waiting:", 1)[0], note)
