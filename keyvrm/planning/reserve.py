"""The failover reserve an LB plan keeps: no move after which an HA aggregate tolerates
fewer host failures than its ``ha_failover_reserve``.

Checked incrementally, never by analysing the aggregate again per candidate move. On the
plan's first candidate, every failure the reserve covers is planned once with HA's own
planner (``planning.ha.plan_evacuation``, as ``planning.failover`` plans it): each host
of the aggregate and, with a reserve of 2, the host pairs the failover analysis searches
(``failover.searched_pairs``). Each failure keeps how many evacuable VMs it leaves
without a target and the hosts its plan sends VMs to.

A candidate move of VM v from S to T is judged on the failures it can make worse: those
whose plan sends VMs to T (T has less room), those T is part of (T carries v), and those
that evacuate a member of v's server group (where the group runs changed). Each is
planned again with the move counted; if one leaves more VMs without a target than it
does now, the move is refused with the check ``failover_reserve``. The other failures
cannot lose: the move only takes room from T, which their plans do not use, and frees
some on S. Each failure is planned asking only what it leaves behind
(``ha.place_evacuees``): by most free RAM alone when that places every VM (HA, which
spreads VMs when that costs nothing, then leaves none behind either), else the plan HA
keeps of that one and the spread one. A plan that does not use T comes out the same
after the move, and HA keeps it or one that places at least as many VMs. The one
exception: HA kept the spread plan and the most-free-RAM plan, changed by the move, now
places more VMs of a first ``evacuate_order`` tier and fewer in all; HA then keeps it
(priority first), which this guard does not foresee.

When a move is made, the failures it touched (those above and S's) are planned again,
so what each plan uses stays current. S, lighter now, may draw VMs of any failure, so
every failure counts as using S until it is planned again.

An aggregate already short of its reserve is never made shorter: a move passes only if
no failure leaves more VMs behind than before it.
"""

from __future__ import annotations

from typing import Callable
from typing import Optional

import msgspec

from keyvrm.planning import failover
from keyvrm.planning import gate
from keyvrm.planning import ha

FAILOVER_RESERVE = "failover_reserve"


class _Failure:
    """One failure the reserve covers: its hosts, the VMs it leaves behind, the hosts its plan uses."""

    __slots__ = ("hosts", "left", "uses")

    def __init__(self, hosts: tuple, left: int, uses: frozenset):
        self.hosts = hosts
        self.left = left
        self.uses = uses


class ReserveGuard:
    """Refuses an LB plan's moves that would spend its aggregate's failover reserve (see module)."""

    def __init__(self, ctx, snapshot, app_config, agg_config, busy, vms_on: Callable, max_k: int):
        self.ctx = ctx
        self._snapshot = snapshot
        self._app_config = app_config
        self._agg_config = agg_config
        self._busy = busy
        self._vms_on = vms_on  # host -> the VMs the plan counts on it now (VM records)
        self._max_k = max_k
        self._failures = None  # key (hosts) -> _Failure, built on the first check
        self._users = {}  # host -> keys of the failures whose plan sends VMs to it
        self._containing = {}  # host -> keys of the failures it is part of
        self._pending = None  # (vm, source, target) of the move being judged
        self._rehosted = {}  # (VM id, host) -> the VM's record with that host
        self._judged = None  # (VM id, target, {key: plan result}) of the last move that passed
        self.plans = 0  # failure plans made (what the guard cost)

    def refusal(self, vm, request, source: str, target: str) -> Optional[str]:
        """``failover_reserve`` if moving ``vm`` from ``source`` to ``target`` makes a failure leave more VMs behind."""
        failures = self._ensure()
        self._pending = (vm, source, target)
        planned = {}
        try:
            with self.ctx.trial():
                self.ctx.ledger.move(vm, request.resources, target)
                for key in sorted(self._affected(vm, target)):
                    planned[key] = self._plan(key)
                    if planned[key][0] > failures[key].left:
                        return FAILOVER_RESERVE
        finally:
            self._pending = None
        self._judged = (vm.id, target, planned)
        return None

    def moved(self, vm, source: str, target: str) -> None:
        """Record a move the plan made (the ledger and ``vms_on`` count it already)."""
        if self._failures is None:
            return
        judged = self._judged[2] if self._judged is not None and self._judged[:2] == (vm.id, target) else {}
        self._judged = None
        touched = self._affected(vm, target) | self._containing.get(source, set())
        for key in touched:
            self._record(key, judged.get(key))
        drawn = self._users.setdefault(source, set())
        for key, found in self._failures.items():
            if key not in touched and source not in found.uses:
                found.uses = found.uses | {source}
                drawn.add(key)

    def _ensure(self) -> dict:
        if self._failures is None:
            self._failures = {}
            names = [h.name for h in self.ctx.hosts]
            keys = [(name,) for name in names]
            if self._max_k >= 2:
                pairs, _ = failover.searched_pairs(self.ctx.index, self._app_config, self._agg_config, names)
                keys.extend(pairs)
            for key in keys:
                for host in key:
                    self._containing.setdefault(host, set()).add(key)
                self._record(key)
        return self._failures

    def _record(self, key, planned=None) -> None:
        """Keep ``key``'s failure as planned now (``planned``: its plan's result, already made)."""
        old = self._failures.get(key)
        if old is not None:
            for host in old.uses:
                self._users[host].discard(key)
        left, uses = planned or self._plan(key)
        self._failures[key] = _Failure(key, left, uses)
        for host in uses:
            self._users.setdefault(host, set()).add(key)

    def _affected(self, vm, target: str) -> set:
        keys = set(self._users.get(target, ())) | self._containing.get(target, set())
        group = self.ctx.index.server_groups.get(vm.server_group_id) if vm.server_group_id else None
        for member in () if group is None else group.members:
            keys |= self._containing.get(self.ctx.ledger.location(member), set())
        return keys

    def _plan(self, hosts) -> tuple:
        """(VMs left without a target, hosts used) if ``hosts`` failed now, as the ledger counts VMs."""
        self.plans += 1
        with self.ctx.trial():
            plan = ha.plan_evacuation(self._snapshot, self._app_config, self._agg_config, self._busy, hosts,
                                      index=self.ctx.index, max_rejected_hosts=0, context=self.ctx,
                                      vms_on=self._carried, left_behind_only=True)
        left = sum(1 for reason in plan.reasons if reason.code in failover.NO_TARGET_CODES)
        return left, frozenset(move.target for move in plan.moves)

    def _carried(self, host: str) -> list:
        """The VMs on ``host`` with the move being judged counted, each recorded as on ``host``."""
        vms = list(self._vms_on(host))
        if self._pending is not None:
            vm, source, target = self._pending
            if host == source:
                vms = [other for other in vms if other.id != vm.id]
            elif host == target:
                vms.append(vm)
        return [vm if vm.host == host else self._on(vm, host) for vm in vms]

    def _on(self, vm, host: str):
        key = (vm.id, host)
        found = self._rehosted.get(key)
        if found is None:
            found = self._rehosted[key] = msgspec.structs.replace(vm, host=host)
        return found


def reserve_guard(ctx, snapshot, app_config, agg_config, busy, vms_on: Callable,
                  failover_max_k: int) -> Optional[ReserveGuard]:
    """The guard of an LB plan on ``agg_config``'s aggregate, or None when it keeps no reserve.

    None unless HA runs on the aggregate (``gate.aggregate_gate``) with a reserve above 0;
    the reserve is covered up to ``min(reserve, failover_max_k, 2)`` hosts failing together.
    """
    max_k = min(agg_config.ha_failover_reserve, failover_max_k, failover.MAX_SEARCHED_K)
    if max_k < 1 or not gate.aggregate_gate(app_config, agg_config).run_ha:
        return None
    return ReserveGuard(ctx, snapshot, app_config, agg_config, busy, vms_on, max_k)
