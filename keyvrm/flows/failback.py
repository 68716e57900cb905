"""Failback: the VMs KeyVRM moved off a host, back to it once an operator returned it to service.

A restore asked with ``failback`` (``openstack keyvrm hypervisor restore HOST
--failback``), or any restore on an aggregate whose ``failback`` is ``auto``, leaves the
host's failback pending (``ReturnHostsToService``). In the cycle the host is ``ok``
again, after the aggregates' flows and the drains, its failback is planned from the
cycle's snapshot (``planning.failback``) over the VMs KeyVRM's drains and HA evacuations
moved off it (``recommendations.moved_off``) and recorded as an event of kind
``failback``: manual recommendations, as LB's (``openstack keyvrm recommendation run``),
or run at once when the aggregate's ``failback`` is ``auto``. With ``failback`` ``off``
only a restore that asks for it plans one, as ``recommend`` would.
"""

from __future__ import annotations

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.flows import context
from keyvrm.flows import drain
from keyvrm.flows import events
from keyvrm.flows import lb
from keyvrm.flows import recommend
from keyvrm.flows import steps
from keyvrm.model import snapshot as m
from keyvrm.model import states
from keyvrm.planning import failback as failback_planning

LOG = logging.getLogger(__name__)

# the events whose moves a failback brings back: an operator's drain, HA's evacuations
FROM_KINDS = (states.EventKind.DRAIN, states.EventKind.HA)


class PlanFailbacks(steps.FlowTask):
    """Plan and record each pending failback (see the module docstring); provides {host: recommendation ids}."""

    def __init__(self, resources):
        super().__init__(resources, "plan_failbacks", provides="failbacks")

    def execute(self, enabled, cycle_id, snapshot_id, busy_hosts=(), busy_vms=()):
        if not enabled or snapshot_id is None:
            return {}
        res, planned = self.resources, {}
        for host in db_api.list_failbacks_pending(res.db):
            aggregate = drain.aggregate_of(res.db, host)
            if aggregate is not None:
                planned[host] = self._plan(host, aggregate, cycle_id, snapshot_id, busy_hosts, busy_vms)
            db_api.clear_failback(res.db, host)
        return planned

    def _plan(self, host, aggregate, cycle_id, snapshot_id, busy_hosts, busy_vms) -> list:
        res = self.resources
        app_config, agg_config = context.configs(res.db, aggregate)
        moved_to = db_api.moved_off(res.db, host, FROM_KINDS)
        if not moved_to:
            LOG.info("failback to %s: KeyVRM moved no VM off it", host)
            return []
        busy = context.busy_now(res.db, busy_hosts, busy_vms, None)
        plan = failback_planning.plan_failback(context.load_slice(res.db, snapshot_id, aggregate), app_config,
                                               agg_config, host, moved_to, m.BusySet(hosts=busy.hosts, vms=busy.vms))
        event_id = events.open_event(res.db, cycle_id, aggregate, states.EventKind.FAILBACK, agg_config.marker,
                                     snapshot_id)
        cap = res.conf.max_rejected_hosts
        if not plan.moves:
            events.complete_event(res.db, event_id, states.EventState.HEALTHY, plan.reasons, max_rejected_hosts=cap)
            return []
        auto = agg_config.failback == "auto"
        events.add_reasons(res.db, event_id, plan.reasons, status=states.EventStatus.GENERATED,
                           max_rejected_hosts=cap)
        ids = recommend.create_recommendations(res.db, event_id, plan.moves, auto_run=auto)
        db_api.set_event_status(res.db, event_id,
                                states.EventStatus.EXECUTING if auto else states.EventStatus.MANUAL_ACTION)
        LOG.info("failback to %s: %d live migration(s) %s", host, len(ids), "started" if auto else "recommended")
        if auto:
            lb.start_executors(res, ids)
        return ids
