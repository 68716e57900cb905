"""Drain planning: where each VM of a host an operator takes out of service goes, by live migration.

The target choice is LB's: hosts of the aggregate, least loaded first (``syn_score``),
each checked as an LB target is -- busy hosts, online state, unfit hosts (a stale
heartbeat), capacity (Placement), server groups and the Nova filters
(``TargetSelector.host_rejection``), a live migration that just failed there (the LB
cool-down), and the LB target limit after the move (``lb_target_max_load`` and each
ceiling less the hysteresis), so a drain overloads no one. VMs go largest RAM first (the
hardest to place, while the most room is free). A VM that may not move is listed and
stays: ``lb_no_migrate`` (excluded by metadata), busy with an unfinished recommendation,
or not live-migratable (not ACTIVE or PAUSED, or a task in progress). A VM no host takes
gets a ``no_target`` reason naming, per candidate host, the check that rejected it.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import lb
from keyvrm.planning.plan import LIVE_MIGRATE
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.scheduling import scoring

DRAINED = "draining"  # the check that keeps the drained host itself out of the targets


def plan_drain(snapshot, app_config, agg_config, host: str, busy: m.BusySet = m.BusySet(), *,
               recent_failures: Optional[dict] = None, now_s: float = 0.0,
               cooldown_s: float = lb.DEFAULT_COOLDOWN_S, index=None, filter_options=None,
               max_rejected_hosts: Optional[int] = None) -> Plan:
    """The live migrations that empty ``host`` into the rest of its aggregate, and why any VM stays.

    ``recent_failures`` maps (VM id, target) to when that live migration last failed:
    within ``cooldown_s`` at ``now_s`` the VM is not sent there again.
    """
    index = index or snapshot.index()
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters,
                        m.BusySet(hosts=busy.hosts - {host}, vms=busy.vms), index, filter_options,
                        unfit_hosts={host: DRAINED})
    refused = {}
    for (vm_id, target), at in (recent_failures or {}).items():
        if now_s - at < cooldown_s:
            refused.setdefault(vm_id, set()).add(target)
    hypers = {h.name: h for h in ctx.hosts}
    loads = {name: scoring.demand_load(h, ctx.vms_by_host[name]) for name, h in hypers.items()}
    limits = TargetLimits(agg_config)
    found, moves = [], []
    vms = sorted(ctx.vms_by_host.get(host, ()), key=lambda vm: (-vm.flavor.ram_mb, vm.id))
    for vm in vms:
        why = stays(vm, host, busy, app_config.lb_no_migrate_key)
        if why is not None:
            found.append(why)
            continue
        request = ctx.selector.request_for(vm)
        share = scoring.vm_share(vm, hypers[host], len(vms)) if host in hypers else None
        rejected, target = [], None
        for name in sorted(hypers, key=lambda n: (scoring.syn_score(loads[n], agg_config.lb_weights) or 0.0, n)):
            if name == host:
                continue
            check = ctx.selector.host_rejection(request, name)
            after = None
            if check is None and name in refused.get(vm.id, ()):
                check = lb.RECENT_FAILURE
            if check is None and share is not None:
                after = loads[name].shifted(scoring.rescaled(share, hypers[host], hypers[name]), 1)
                check = limits.rejection(after)
            if check is not None:
                rejected.append((name, check, vm.id))
                continue
            target = name
            if after is not None:
                loads[name] = after
            break
        if target is None:
            counts = {}
            for _, check, _ in rejected:
                counts[check] = counts.get(check, 0) + 1
            listed, more = reasons.rejected_hosts(rejected, max_rejected_hosts)
            found.append(reasons.no_target("VM %s of drained host %s" % (vm.id, host), counts, vm_id=vm.id,
                                           host=host, rejected=listed, more=more))
            continue
        ctx.ledger.move(vm, request.resources, target)
        moves.append(PlannedMove(vm.id, LIVE_MIGRATE, host, target, ram_mb=vm.flavor.ram_mb))
    return Plan(tuple(moves), (reasons.drain(host, len(moves), len(vms) - len(moves)),) + tuple(found))


def stays(vm, host, busy, no_migrate_key) -> Optional[reasons.Reason]:
    """Why ``vm`` may not leave ``host`` by a live migration now, or None."""
    if vm.no_migr:
        return reasons.excluded_by_metadata(vm.id, no_migrate_key, host)
    if vm.id in busy.vms:
        return reasons.busy(vm.id, host)
    if vm.status not in lb.MIGRATABLE_STATUSES or vm.task_state is not None:
        return reasons.not_migratable(vm.id, host, vm.status, vm.task_state)
    return None


class TargetLimits:
    """LB's target limit after a move: the score and each resource's ceiling less the hysteresis."""

    def __init__(self, agg_config):
        self.weights = agg_config.lb_weights
        self.score = agg_config.lb_target_max_load
        self.ceilings = {key: agg_config.lb_target_ceiling(key) for key in scoring.METRICS}

    def rejection(self, load) -> Optional[str]:
        """The limit ``load`` is above (``lb_target_max_load`` or ``lb_ceilings.<resource>``), or None."""
        score = scoring.syn_score(load, self.weights)
        if score is not None and score > self.score:
            return lb.TARGET_LOAD_LIMIT
        for key, value in zip(scoring.METRICS, load.values()):
            ceiling = self.ceilings[key]
            if ceiling is not None and value is not None and value > ceiling:
                return "lb_ceilings.%s" % key
        return None
