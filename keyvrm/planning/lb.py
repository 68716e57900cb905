"""LB planning: live migrations that take overloaded hypervisors of an aggregate below
their threshold without overloading anyone else.

Rules (SPEC 6): an aggregate mixing HugePages and ordinary VMs is refused
(``mixed_hugepages``); hosts whose ``syn_score`` exceeds ``lb_overload_threshold`` are
handled worst first; for each, VMs are tried largest share of its score first and
targets least loaded first, and a move is kept only if the source improves, the target
stays <= ``lb_target_max_load`` after it, the gap between them shrinks by at least
``min_improvement_pct`` (no ping-pong), and busy/no_migr/cool-down VMs, busy hosts,
capacity, server groups and the Nova filters allow it. Each move carries its load
calculation and is counted (ledger and loads) before the next one is chosen. When an
overloaded host gets no move, its ``no_target`` reason counts the checks that failed
over every (VM, candidate host) pair tried.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning.plan import HostLoadCalc
from keyvrm.planning.plan import LIVE_MIGRATE
from keyvrm.planning.plan import LoadCalculation
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.scheduling import hugepages
from keyvrm.scheduling import scoring

TARGET_LOAD_LIMIT = "lb_target_max_load"
NOT_ENOUGH_GAIN = "min_improvement"
NO_SCORE = "no_metrics"

DEFAULT_MIN_IMPROVEMENT_PCT = 2.0
DEFAULT_MAX_MOVES_PER_HOST = 10
MIGRATABLE_STATUSES = ("ACTIVE", "PAUSED")


@dataclasses.dataclass(frozen=True, slots=True)
class LBTiming:
    """Whether LB may run on an aggregate now, and if not, how long to wait."""

    due: bool
    wait_s: float = 0.0


def lb_timing(last_event_at: Optional[float], last_recommendation_at: Optional[float],
              now_s: float, lb_period_s: float) -> LBTiming:
    """Decide whether LB may run now.

    It is due when ``lb_period_s`` has passed since both the last LB event and the last
    LB recommendation (either may be None: never).
    """
    last = max((t for t in (last_event_at, last_recommendation_at) if t is not None),
               default=None)
    if last is None or now_s - last >= lb_period_s:
        return LBTiming(True)
    return LBTiming(False, lb_period_s - (now_s - last))


def hugepages_mix(vms) -> tuple:
    """(HugePages VMs, ordinary VMs) among ``vms``."""
    huge = sum(1 for vm in vms if hugepages.wants_hugepages(
        hugepages.requested_page_size(vm.flavor)))
    return huge, len(vms) - huge


def _calc(before: scoring.Load, after: scoring.Load, weights) -> HostLoadCalc:
    return HostLoadCalc(before.cpu_pct, after.cpu_pct, before.ram_pct, after.ram_pct,
                        before.net_pct, after.net_pct, scoring.syn_score(before, weights),
                        scoring.syn_score(after, weights))


class _Balancer:
    """The mutable state of one LB plan: loads, scores and a score-ordered target list."""

    def __init__(self, ctx, agg_config, busy, cooled, min_improvement_pct, max_moves,
                 no_migrate_key):
        self.ctx = ctx
        self.no_migrate_key = no_migrate_key
        self.cfg = agg_config
        self.weights = agg_config.lb_weights
        self.busy = busy
        self.cooled = cooled
        self.min_gain = min_improvement_pct
        self.max_moves = max_moves
        self.hyper = {h.name: h for h in ctx.hosts}
        self.loads = {h.name: scoring.load_of(h) for h in ctx.hosts}
        self.scores = {n: scoring.syn_score(load, self.weights) for n, load in self.loads.items()}
        self.vms = {n: list(vms) for n, vms in ctx.vms_by_host.items()}
        self.ranked = sorted((s, n) for n, s in self.scores.items() if s is not None)
        weighted = [i for i, key in enumerate(scoring.METRICS) if self.weights.get(key, 0) > 0]
        # with every weighted metric measured everywhere, a target's score grows by at
        # least the VM's share rescaled to the largest host: the scan can stop early
        self.complete = all(self.loads[n].values()[i] is not None
                            for n in self.scores for i in weighted)
        self.capacities = tuple(frozenset(_capacities(h)[i] for h in ctx.hosts)
                                for i in range(len(scoring.METRICS)))
        self.moves = []
        self.reasons = []

    def _rerank(self, name, old, new):
        if old is not None:
            del self.ranked[bisect.bisect_left(self.ranked, (old, name))]
        bisect.insort(self.ranked, (new, name))

    def _skip_reason(self, vm, source):
        if vm.no_migr:
            return reasons.excluded_by_metadata(vm.id, self.no_migrate_key, source)
        if vm.id in self.busy.vms:
            return reasons.busy(vm.id, source)
        if vm.id in self.cooled:
            return reasons.cooldown(vm.id, source)
        if vm.status not in MIGRATABLE_STATUSES or vm.task_state is not None:
            return reasons.not_migratable(vm.id, source, vm.status, vm.task_state)
        return None

    def balance(self, source):
        """Move VMs off ``source`` until it is no longer overloaded (or nothing helps)."""
        movable = []
        for vm in self.vms[source]:
            why = self._skip_reason(vm, source)
            if why is None:
                movable.append(vm)
            else:
                self.reasons.append(why)
        threshold = self.cfg.lb_overload_threshold
        rejections = {}
        moved = 0
        while (moved < self.max_moves and movable
               and scoring.is_overloaded(self.scores[source], threshold)):
            vm = self._best_move(source, movable, rejections)
            if vm is None:
                break
            movable.remove(vm)
            moved += 1
        if moved == 0:
            if rejections:
                self.reasons.append(reasons.no_target(
                    "overloaded %s (counts are VM x host checks)" % source, rejections,
                    host=source))
            else:
                self.reasons.append(reasons.not_improving(source, self.scores[source]))

    def _candidates(self, source, movable):
        """Movable VMs of ``source`` with their load share, largest score gain first."""
        hyper = self.hyper[source]
        load = self.loads[source]
        count = len(self.vms[source])
        ranked = []
        for vm in movable:
            share = scoring.vm_share(vm, hyper, count)
            gain = self.scores[source] - scoring.syn_score(load.shifted(share, -1), self.weights)
            if gain > 0:
                ranked.append((-gain, vm.id, vm, share))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return ranked

    def _best_move(self, source, movable, rejections):
        """Apply and return the first VM that has an acceptable target, or None.

        A VM that finds no target is dropped from ``movable``: while one source is
        balanced its targets only fill up, so it would find none later either (except a
        VM whose placement depends on where others are: affinity group, same_host hint).
        The target scan stops at the first host too loaded for the gap to shrink by
        ``min_improvement_pct`` (targets are in ascending score order); the hosts left
        are counted under that check.
        """
        hyper = self.hyper[source]
        src_before = self.scores[source]
        src_load = self.loads[source]
        limit = self.cfg.lb_target_max_load
        selector = self.ctx.selector
        ranked = self.ranked
        limit_end = bisect.bisect_right(ranked, (limit, "\uffff"))
        # a host scored above this cannot pass the gain check (1e-9: the check decides ties)
        gain_end = bisect.bisect_right(ranked, (src_before - self.min_gain + 1e-9, "\uffff"), 0,
                                       limit_end)
        own = bisect.bisect_left(ranked, (src_before, source))
        for _, _, vm, share in self._candidates(source, movable):
            src_after_load = src_load.shifted(share, -1)
            src_after = scoring.syn_score(src_after_load, self.weights)
            request = selector.request_for(vm)
            end = limit_end
            if self.complete:
                end = bisect.bisect_right(ranked, (limit - self._least_growth(share, hyper) + 1e-9,
                                                   "\uffff"), 0, limit_end)
            for i in range(limit_end):
                if i >= end or i >= gain_end:
                    check = NOT_ENOUGH_GAIN if i >= gain_end else TARGET_LOAD_LIMIT
                    rejections[check] = rejections.get(check, 0) + (
                        limit_end - i - (1 if i <= own < limit_end else 0))
                    break
                t_before, target = ranked[i]
                if target == source:
                    continue
                delta = scoring.rescaled(share, hyper, self.hyper[target])
                t_after_load = self.loads[target].shifted(delta, 1)
                t_after = scoring.syn_score(t_after_load, self.weights)

                def extra(_host, t_after=t_after, t_before=t_before):
                    if t_after is None or t_after > limit:
                        return TARGET_LOAD_LIMIT
                    if (src_before - t_before) - abs(src_after - t_after) < self.min_gain:
                        return NOT_ENOUGH_GAIN
                    return None

                why = selector.host_rejection(request, target, extra)
                if why is not None:
                    rejections[why] = rejections.get(why, 0) + 1
                    continue
                self._apply(vm, source, target, src_after_load, t_after_load)
                return vm
            if not _placement_depends_on_others(vm, request):
                movable.remove(vm)
        return None

    def _least_growth(self, share, hyper) -> float:
        """The least a target's score can grow by taking ``share`` of ``hyper``."""
        own = _capacities(hyper)
        total = weight_sum = 0.0
        for i, key in enumerate(scoring.METRICS):
            weight = self.weights.get(key, 0.0)
            if weight <= 0:
                continue
            weight_sum += weight
            value = share.values()[i]
            if value:
                total += weight * value * min(own[i] / cap if own[i] and cap else 1.0
                                              for cap in self.capacities[i])
        return total / weight_sum if weight_sum else 0.0

    def _apply(self, vm, source, target, src_after_load, t_after_load):
        weights = self.weights
        calc = LoadCalculation(_calc(self.loads[source], src_after_load, weights),
                               _calc(self.loads[target], t_after_load, weights))
        request = self.ctx.selector.request_for(vm)
        self.ctx.ledger.move(vm, request.resources, target)
        self.vms[source].remove(vm)
        self.vms[target].append(vm)
        old_src, old_t = self.scores[source], self.scores[target]
        self.loads[source], self.loads[target] = src_after_load, t_after_load
        self.scores[source] = calc.source.syn_score_after_pct
        self.scores[target] = calc.target.syn_score_after_pct
        self._rerank(source, old_src, self.scores[source])
        self._rerank(target, old_t, self.scores[target])
        self.moves.append(PlannedMove(vm.id, LIVE_MIGRATE, source, target, load=calc,
                                      ram_mb=vm.flavor.ram_mb))


def _capacities(hyper) -> tuple:
    """A host's capacity per metric of scoring.METRICS, as ``scoring.rescaled`` reads it."""
    def cap(rc):
        return hyper.inventories[rc].total if rc in hyper.inventories else None

    pages = sum(hp.page_size_kb * hp.total_pages for hp in hyper.hugepages or ()) or None
    return (cap(m.VCPU), cap(m.MEMORY_MB), hyper.net_capacity_mbps, pages)


def _placement_depends_on_others(vm, request) -> bool:
    """Whether a host can start passing ``vm`` when other VMs move (affinity, same_host)."""
    group = request.server_group
    return bool((group is not None and group.policy == m.AFFINITY)
                or (vm.scheduler_hints or {}).get("same_host"))


def plan_balancing(snapshot, app_config, agg_config, busy: m.BusySet = m.BusySet(), *,
                   recent_moves: Optional[dict] = None, now_s: float = 0.0,
                   cooldown_s: float = 0.0,
                   min_improvement_pct: float = DEFAULT_MIN_IMPROVEMENT_PCT,
                   max_moves_per_host: int = DEFAULT_MAX_MOVES_PER_HOST,
                   index=None, filter_options=None) -> Plan:
    """Plan the live migrations of one aggregate's LB run (period check excluded).

    ``recent_moves`` maps VM id to when KeyVRM last moved it; such a VM stays put until
    ``cooldown_s`` has passed at ``now_s``.
    """
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters, busy, index,
                        filter_options)
    aggregate = agg_config.name
    huge, ordinary = hugepages_mix([vm for vms in ctx.vms_by_host.values() for vm in vms])
    if huge and ordinary:
        return Plan((), (reasons.mixed_hugepages(aggregate, huge, ordinary),))
    cooled = frozenset(vm_id for vm_id, at in (recent_moves or {}).items()
                       if now_s - at < cooldown_s)
    balancer = _Balancer(ctx, agg_config, busy, cooled, min_improvement_pct,
                         max_moves_per_host, app_config.lb_no_migrate_key)
    found = [] if app_config.nova_filters else [reasons.no_filters()]
    unscored = [h.name for h in ctx.hosts if balancer.scores[h.name] is None]
    if ctx.hosts and len(unscored) == len(ctx.hosts):
        return Plan((), tuple(found + [reasons.no_metrics(aggregate=aggregate)]))
    found.extend(reasons.no_metrics(host=name) for name in unscored)
    threshold = agg_config.lb_overload_threshold
    overloaded = sorted((n for n, s in balancer.scores.items()
                         if scoring.is_overloaded(s, threshold)),
                        key=lambda n: (-balancer.scores[n], n))
    if not overloaded:
        return Plan((), tuple(found + [reasons.no_overload(aggregate, threshold)]))
    # what this run acts on comes first: it names the event, not an unscored dead host
    found.insert(0, reasons.overloaded(aggregate, threshold, [(n, balancer.scores[n]) for n in overloaded]))
    for source in overloaded:
        if source in busy.hosts:
            found.append(reasons.busy(None, source))
            continue
        balancer.balance(source)
    unchecked = reasons.filter_input_unknown(ctx.selector.unchecked.summary())
    return Plan(tuple(balancer.moves), tuple(found + balancer.reasons + unchecked))
