"""Failback planning: the VMs KeyVRM moved off a host, live-migrated back once it is in service again.

Only the VMs KeyVRM itself moved off the host by a drain or an HA evacuation, and only
where it put them: a VM deleted since, or moved elsewhere since (by an operator, by LB
or by Nova), is skipped with the reason (``failback_skipped``). A VM goes back when the
host would take it as an LB target: online, capacity (Placement), server groups and
the Nova filters (``TargetSelector.host_rejection``; a group that no longer allows the
host refuses it), and the LB target limit after the move, so the host is not
overloaded; otherwise it stays where it is with the check that refused it
(``no_target``). A VM marked ``lb_no_migrate``, busy, or not live-migratable stays too.
Largest VMs first, while the most room is free.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import drain
from keyvrm.planning.plan import LIVE_MIGRATE
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.scheduling import scoring


def plan_failback(snapshot, app_config, agg_config, host: str, moved_to: dict,
                  busy: m.BusySet = m.BusySet(), *, index=None, filter_options=None) -> Plan:
    """The live migrations that bring back to ``host`` the VMs ``moved_to`` maps to where KeyVRM put them."""
    index = index or snapshot.index()
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters,
                        m.BusySet(hosts=busy.hosts - {host}, vms=busy.vms), index, filter_options)
    hypers = {h.name: h for h in ctx.hosts}
    if host not in hypers:
        return Plan((), (reasons.failback(host, 0, len(moved_to)),) + tuple(
            reasons.failback_skipped(vm_id, host, "%s is not in aggregate %s" % (host, agg_config.name))
            for vm_id in sorted(moved_to)))
    limits = drain.TargetLimits(agg_config)
    load = scoring.demand_load(hypers[host], ctx.vms_by_host[host])
    found, moves = [], []
    candidates = []
    for vm_id, put_on in sorted(moved_to.items()):
        vm = index.vms.get(vm_id)
        why = _skipped(vm, vm_id, host, put_on)
        if why is not None:
            found.append(why)
        else:
            candidates.append(vm)
    for vm in sorted(candidates, key=lambda v: (-v.flavor.ram_mb, v.id)):
        why = drain.stays(vm, vm.host, busy, app_config.lb_no_migrate_key)
        if why is not None:
            found.append(why)
            continue
        request = ctx.selector.request_for(vm)
        check = ctx.selector.host_rejection(request, host)
        after = None
        if check is None and vm.host in hypers:
            share = scoring.vm_share(vm, hypers[vm.host], len(ctx.vms_by_host.get(vm.host, ())))
            after = load.shifted(scoring.rescaled(share, hypers[vm.host], hypers[host]), 1)
            check = limits.rejection(after)
        if check is not None:
            found.append(reasons.no_target("failback of VM %s to %s" % (vm.id, host), {check: 1}, vm_id=vm.id,
                                           host=vm.host, rejected=((host, check, 1),)))
            continue
        if after is not None:
            load = after
        ctx.ledger.move(vm, request.resources, host)
        moves.append(PlannedMove(vm.id, LIVE_MIGRATE, vm.host, host, ram_mb=vm.flavor.ram_mb))
    return Plan(tuple(moves), (reasons.failback(host, len(moves), len(moved_to) - len(moves)),) + tuple(found))


def _skipped(vm, vm_id, host, put_on) -> Optional[reasons.Reason]:
    """Why ``vm`` (None: deleted) is not KeyVRM's to bring back to ``host`` any more, or None."""
    if vm is None:
        return reasons.failback_skipped(vm_id, host, "deleted since KeyVRM moved it")
    if vm.host == host:
        return reasons.failback_skipped(vm_id, host, "already on %s" % host)
    if vm.host != put_on:
        return reasons.failback_skipped(vm_id, host, "moved from %s to %s since KeyVRM put it there"
                                        % (put_on, vm.host))
    return None
