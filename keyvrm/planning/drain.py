"""Drain planning: where each VM of a host an operator takes out of service goes, and how it is moved.

The target choice is LB's: hosts of the aggregate, least loaded first (``syn_score``),
each checked as an LB target is -- busy hosts, online state, unfit hosts (a stale
heartbeat), capacity (Placement), server groups and the Nova filters
(``TargetSelector.host_rejection``), a migration of the same kind that just failed there
(the LB cool-down), and the LB target limit after the move (``lb_target_max_load`` and
each ceiling less the hysteresis), so a drain overloads no one. VMs go largest RAM first
(the hardest to place, while the most room is free). A VM no host takes gets a
``no_target`` reason naming, per candidate host, the check that rejected it.

How a VM moves (``move_of``): a live migration when Nova allows one (ACTIVE or PAUSED,
no task in progress). A drain asked with ``allow_cold`` cold-migrates (Nova's
``migrate`` to the chosen host, then ``confirmResize``) the VMs a live migration cannot
move that Nova can cold-migrate (ACTIVE or SHUTOFF, no task): a stopped (SHUTOFF) VM,
which Nova refuses to live-migrate and which loses nothing by a cold migration; and an
ACTIVE VM whose live migration in this drain failed (``live_failed``: the drain's cold
round, ``keyvrm.flows.drain``), which is powered off for its move and started again on
its target. A VM that may not move is listed and stays: ``lb_no_migrate`` (excluded by
metadata, never moved), busy with an unfinished recommendation, or neither live- nor
(with ``allow_cold``) cold-migratable (a task in progress, SUSPENDED, ERROR, a PAUSED VM
whose live migration failed, ...); without ``allow_cold`` a SHUTOFF VM's reason says
that a drain with it would cold-migrate it.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import lb
from keyvrm.planning.plan import COLD_MIGRATE
from keyvrm.planning.plan import LIVE_MIGRATE
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.scheduling import scoring

DRAINED = "draining"  # the check that keeps the drained host itself out of the targets
SHUTOFF = "SHUTOFF"
# Nova's vm_states that allow a cold migration (the migrate API: active, stopped)
COLD_MIGRATABLE_STATUSES = ("ACTIVE", SHUTOFF)


def plan_drain(snapshot, app_config, agg_config, host: str, busy: m.BusySet = m.BusySet(), *,
               allow_cold: bool = False, live_failed: frozenset = frozenset(), only: Optional[frozenset] = None,
               recent_failures: Optional[dict] = None, recent_cold_failures: Optional[dict] = None,
               now_s: float = 0.0, cooldown_s: float = lb.DEFAULT_COOLDOWN_S, index=None, filter_options=None,
               max_rejected_hosts: Optional[int] = None, after_event: Optional[str] = None) -> Plan:
    """The migrations that empty ``host`` into the rest of its aggregate, and why any VM stays.

    ``allow_cold`` and ``live_failed`` decide how each VM moves (``move_of``); ``only``
    limits the plan to those VM ids (a cold round, which follows the drain's event
    ``after_event``: the plan's ``drain`` reason says so), None plans every VM of the host.
    ``recent_failures`` (live migrations) and ``recent_cold_failures`` map (VM id,
    target) to when that migration last failed: within ``cooldown_s`` at ``now_s`` the VM
    is not sent there again by a migration of that kind.
    """
    index = index or snapshot.index()
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters,
                        m.BusySet(hosts=busy.hosts - {host}, vms=busy.vms), index, filter_options,
                        unfit_hosts={host: DRAINED})
    refused = {LIVE_MIGRATE: _refused(recent_failures, now_s, cooldown_s),
               COLD_MIGRATE: _refused(recent_cold_failures, now_s, cooldown_s)}
    hypers = {h.name: h for h in ctx.hosts}
    loads = {name: scoring.demand_load(h, ctx.vms_by_host[name]) for name, h in hypers.items()}
    limits = TargetLimits(agg_config)
    found, moves = [], []
    vms = sorted((vm for vm in ctx.vms_by_host.get(host, ()) if only is None or vm.id in only),
                 key=lambda vm: (-vm.flavor.ram_mb, vm.id))
    on_host = len(ctx.vms_by_host.get(host, ()))
    for vm in vms:
        action, why = move_of(vm, host, busy, app_config.lb_no_migrate_key, allow_cold, live_failed)
        if why is not None:
            found.append(why)
            continue
        request = ctx.selector.request_for(vm)
        share = scoring.vm_share(vm, hypers[host], on_host) if host in hypers else None
        rejected, target = [], None
        for name in sorted(hypers, key=lambda n: (scoring.syn_score(loads[n], agg_config.lb_weights) or 0.0, n)):
            if name == host:
                continue
            check = ctx.selector.host_rejection(request, name)
            after = None
            if check is None and name in refused[action].get(vm.id, ()):
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
        moves.append(PlannedMove(vm.id, action, host, target, ram_mb=vm.flavor.ram_mb))
    cold = sum(1 for move in moves if move.action == COLD_MIGRATE)
    return Plan(tuple(moves), (reasons.drain(host, len(moves) - cold, len(vms) - len(moves), cold=cold,
                                             allow_cold=allow_cold, after_event=after_event),) + tuple(found))


def _refused(failures, now_s, cooldown_s) -> dict:
    """{VM id: targets its migration to failed within ``cooldown_s`` of ``now_s``} from {(VM, target): at}."""
    refused = {}
    for (vm_id, target), at in (failures or {}).items():
        if now_s - at < cooldown_s:
            refused.setdefault(vm_id, set()).add(target)
    return refused


def move_of(vm, host, busy, no_migrate_key, allow_cold=False, live_failed=frozenset()):
    """How a drain moves ``vm`` off ``host``: (``live_migrate`` or ``cold_migrate``, None), or (None, why it stays).

    See the module docstring: live when Nova allows it and it has not failed in this drain
    (``live_failed``); with ``allow_cold``, cold for a SHUTOFF VM and for an ACTIVE one
    whose live migration failed.
    """
    if vm.no_migr:
        return None, reasons.excluded_by_metadata(vm.id, no_migrate_key, host)
    if vm.id in busy.vms:
        return None, reasons.busy(vm.id, host)
    if vm.task_state is None:
        if vm.status in lb.MIGRATABLE_STATUSES and vm.id not in live_failed:
            return LIVE_MIGRATE, None
        if allow_cold and vm.status in COLD_MIGRATABLE_STATUSES and (vm.status == SHUTOFF or vm.id in live_failed):
            return COLD_MIGRATE, None
    cold_possible = vm.task_state is None and vm.status == SHUTOFF  # what a drain with allow_cold would move
    return None, reasons.not_migratable(vm.id, host, vm.status, vm.task_state, live_failed=vm.id in live_failed,
                                        cold_possible=cold_possible and not allow_cold)


def stays(vm, host, busy, no_migrate_key) -> Optional[reasons.Reason]:
    """Why ``vm`` may not leave ``host`` by a live migration now, or None."""
    return move_of(vm, host, busy, no_migrate_key)[1]


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
