"""LB planning: live migrations that relieve the overloaded hypervisors of an aggregate,
as few and as small as will do it, without overloading anyone else.

Overloaded (SPEC 6.4): ``syn_score`` above ``lb_overload_threshold``, or any resource
(cpu, ram, net, hugepages) at or above its ceiling in ``lb_ceilings``, whatever the score
(a host at 100% CPU and 45% RAM scores ~70 but its VMs wait for cores). A host whose CPU
is saturated (``scoring.SATURATED_CPU_PCT``) is read by what its VMs ask for, which may
exceed 100% (``scoring.demand_load``): relieved from its demand, not from the 100% that
hides it, it lands under its limits in one plan. An aggregate mixing HugePages and
ordinary VMs is refused (``mixed_hugepages``).

Relief. Each overloaded host is relieved on the measures that made it overloaded (the
score, or the resource at its ceiling) down to a *relief level*: the target limit of that
measure (``lb_target_max_load``; for a resource its ceiling less the hysteresis
``lb_overload_threshold - lb_target_max_load``), never below the aggregate's mean: a
relieved host is under its ceilings and threshold with the hysteresis to spare, where a
target may also end, and relieving it further would cost migrations that no overload
asks for. Moves are chosen across all overloaded hosts at once, best first by benefit
per cost: the load a VM takes off the measures still above their relief level (more
than is needed counts: one busy VM that relieves a host well below the level beats two
that just reach it; below level 5 a measure's part counts up to ``RELIEF_CAP`` times what
that measure still needs, so a VM far bigger than the need wins nothing more for it and
the relief copies less RAM) per GB of RAM a live migration copies plus a fixed cost per
migration (``MIGRATION_COST_GB``), so a small VM that carries the hot resource goes first.
Targets are tried in the order the move widens the aggregate's spread least on the measure
relieved: by the rise of the target's squared deviation from the aggregate's mean, ``g * (2 * (v - mean) +
g)`` for a target at ``v`` growing by ``g`` (the VM's share rescaled to its capacity): the
least loaded of a capacity first, and a small host only when its deficit pays for the
larger points the VM takes there (``tests/benchmarks/bench_lb.py``: against the least
loaded first, 6-9% fewer migrations per point of CPU spread at every level). A move is
kept only if the target stays <= its limits after it (score <= ``lb_target_max_load``,
every resource <= its ceiling less the hysteresis), the gap between source and target shrinks by at least
``min_improvement_pct`` on each measure relieved (no ping-pong), and busy/no_migr/
cool-down VMs, busy hosts, capacity, server groups and the Nova filters allow it. At most
``max_moves_per_host`` moves touch one host (as source or target) per plan.

Balance (``lb_level`` 5). Before the relief, the resources whose spread reaches half of
``settings.LB_BALANCE_BAND_PCT`` (``balance_measures``) are evened out together, one
migration at a time, by ``_Evener``: each step takes the move that lowers the sum over
those resources of the squared deviations from the aggregate's mean most per GB of RAM it
copies plus ``MIGRATION_COST_GB``, among the hosts most above the mean (per resource and on
their sum) and, per class of capacity, those most below it; the pass stops when no move
lowers it by ``settings.LB_BALANCE_WORTH`` points² per such GB (a migration no longer pays
for the balance it buys). Evening the resources out together, rather than one after the
other, lets one migration narrow both spreads (``tests/benchmarks/bench_lb.py`` prints the
moves against the least any plan could need to reach both spreads, ``LBjoint``). The relief
then takes any host still overloaded down; a second plan finds the spreads under the band
and moves nothing.

Cost. A VM that finds no target is not tried again unless a host became a possible
target since (a relieved host); hosts already above a target limit are left out of the
scans, which stop where no later host can pass the target limit or the gain check (per
class of hosts of equal capacity). When an overloaded host gets no move, its
``no_target`` reason counts the checks that failed over every (VM, candidate host) pair
tried; hosts past a scan's end are counted under the check that ended it, hosts left out
under the first limit they are above (sources are not counted). The reason also names, per
candidate host, each check that rejected it and for how many of the source's VMs
(``Reason.rejected_hosts``): each failed attempt keeps the hosts it examined and the
bounds of the scan's tails in lists frozen once per layout (``keyvrm.planning.rejections``),
read into names, up to ``max_rejected_hosts`` items, only for a source that ends with no move.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import heapq
import itertools
import math
import operator
import statistics
from typing import Optional

from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import failover
from keyvrm.planning import gc_pause
from keyvrm.planning import ha as ha_planning
from keyvrm.planning.plan import HostLoadCalc
from keyvrm.planning.plan import LIVE_MIGRATE
from keyvrm.planning.plan import LoadCalculation
from keyvrm.planning.plan import Plan
from keyvrm.planning.plan import PlannedMove
from keyvrm.planning import reasons
from keyvrm.planning import rejections as rejections_mod
from keyvrm.planning import reserve
from keyvrm.scheduling import hugepages
from keyvrm.scheduling import scoring
from keyvrm.scheduling import selector as selector_mod

TARGET_LOAD_LIMIT = "lb_target_max_load"
NOT_ENOUGH_GAIN = "min_improvement"
MOVE_CAP = "max_moves_per_host"
RECENT_FAILURE = "recent_failure"  # this VM's live migration to this host failed within the cool-down
NO_SCORE = "no_metrics"

DEFAULT_MIN_IMPROVEMENT_PCT = 2.0
DEFAULT_MAX_MOVES_PER_HOST = 4
DEFAULT_COOLDOWN_S = 3600.0
# The sources an LB plan is made from: without them its hosts, VMs or capacity are partial.
PLANNED_FROM = (m.SOURCE_NOVA, m.SOURCE_PLACEMENT)
# What one live migration costs beyond the RAM it copies, in GB of RAM: set-up, the
# switch-over pause, the risk of a failure; it makes one sufficient VM beat two smaller ones.
# tests/benchmarks/bench_lb.py (300 and 1,000 CPU-hot hosts, seeds 1-3): at 32 rather than 8
# every level needs 1-4% fewer migrations for the same or a lower spread, for 2-5% more GB,
# and level 3 reaches the least migrations that relieve every hot host (1.00x, was 1.02-1.05x).
MIGRATION_COST_GB = 32.0
MIGRATABLE_STATUSES = ("ACTIVE", "PAUSED")
# Nova's migration statuses of a move that ended with the VM where it was (a live migration rolled back)
MOVED_NOTHING = frozenset(("error", "failed", "cancelled"))
# Level 5's balancing pass (_Evener): per direction hosts are ordered in (each resource evened
# out, and their sum), how many of the hosts most above the mean it tries as sources, and per
# class of capacity how many of those most below it as targets (tests/benchmarks/bench_lb.py:
# more sources or targets gain little and cost plan time at 10,000 hosts).
EVEN_SOURCES = 2
EVEN_TARGETS = 1
# Below level 5, what a VM takes off a measure still above its relief level counts up to this
# many times what that measure still needs (its excess over the level): a VM far bigger than
# the need wins no more for it, so the relief copies less RAM. tests/benchmarks/bench_lb.py,
# 300 and 1,000 CPU-hot hosts, seeds 1-3, the same moves at every cap: level 3's GB over the
# least for its moves (GB(M)) uncapped 1.10-1.16x, capped at 2x 1.04-1.08x, 2.5x 1.05-1.08x,
# 3x 1.05-1.10x, 4x 1.05-1.13x; levels 1-4's moves over LBjoint at most 1.06x, 1.19x, 1.15x,
# 1.14x, 1.11x (the lower the cap, the less the spread narrows). 3 keeps every level within
# 1.15x. Capping each measure or their sum: the same plans there (one measure per hot host).
RELIEF_CAP = 3.0

SCORE = 0  # measure 0 is syn_score, 1.. are scoring.METRICS
MEASURES = ("syn_score",) + scoring.METRICS
_EPS = 1e-9
_TOP = "\uffff"
_UNIT = scoring.Load(1.0, 1.0, 1.0, 1.0)  # rescaled, it gives the capacity ratios
_EXTRA_SPECS = operator.attrgetter("flavor.extra_specs")
_PAGE_SPEC = operator.methodcaller("get", "hw:mem_page_size")


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
    """(HugePages VMs, ordinary VMs) among ``vms``.

    The request is read once per distinct flavor ``hw:mem_page_size`` value (a flavor's
    page request depends on that extra spec only).
    """
    per_value = collections.Counter(map(_PAGE_SPEC, map(_EXTRA_SPECS, vms)))
    huge = 0
    for value, count in per_value.items():
        if value is None:
            continue  # no page request
        flavor = next(vm.flavor for vm in vms if _PAGE_SPEC(vm.flavor.extra_specs) == value)
        if hugepages.wants_hugepages(hugepages.requested_page_size(flavor)):
            huge += count
    return huge, len(vms) - huge


def overload_causes(load: scoring.Load, score: Optional[float], agg_config) -> tuple:
    """Why a host with ``load`` and ``score`` is overloaded: ((measure, value, limit), ...).

    Empty when it is not: the score is at most ``lb_overload_threshold`` and every
    resource is below its ceiling.
    """
    causes = []
    if scoring.is_overloaded(score, agg_config.lb_overload_threshold):
        causes.append((MEASURES[SCORE], score, agg_config.lb_overload_threshold))
    for key, value in zip(scoring.METRICS, load.values()):
        ceiling = agg_config.lb_ceilings.get(key)
        if ceiling is not None and value is not None and value >= ceiling:
            causes.append((key, value, ceiling))
    return tuple(causes)


def move_cap(max_concurrent_per_host: int) -> int:
    """The most moves one plan lets touch a host.

    ``DEFAULT_MAX_MOVES_PER_HOST``, never more than the executor runs to one host at once
    (``[executor] max_concurrent_per_host``), so no move of a plan waits behind its own.
    """
    return max(1, min(DEFAULT_MAX_MOVES_PER_HOST, max_concurrent_per_host))


def overload_streaks(runs) -> dict:
    """Host -> how many consecutive LB runs, newest first, found it overloaded.

    ``runs`` holds, per earlier LB run from the newest back, the hosts it found overloaded
    (relieved or still waiting for ``lb_persistence``); a host missing from a run ends its
    streak there.
    """
    streaks = {}
    alive = None
    for depth, hosts in enumerate(runs, 1):
        alive = set(hosts) if alive is None else alive.intersection(hosts)
        if not alive:
            break
        streaks.update(dict.fromkeys(alive, depth))
    return streaks


def balance_config(agg_config, loads):
    """The thresholds a plan of ``agg_config`` uses on hosts of ``loads`` (``scoring.Load`` each).

    ``agg_config`` itself below the balance level. At ``lb_level`` 5 (balance), each
    threshold is at most the aggregate's mean on its measure plus
    ``LB_BALANCE_BAND_PCT`` (the target limit: plus half of it): a host still that far
    above the mean once the resources are evened out (``_Evener``) is overloaded and
    relieved to near the mean.
    """
    if agg_config.lb_level != settings.LB_BALANCE_LEVEL:
        return agg_config
    band = settings.LB_BALANCE_BAND_PCT
    loads = list(loads)
    scores = [s for s in (scoring.syn_score(load, agg_config.lb_weights) for load in loads) if s is not None]
    changes = {}
    if scores:
        mean = sum(scores) / len(scores)
        changes.update(lb_overload_threshold=min(agg_config.lb_overload_threshold, mean + band),
                       lb_target_max_load=min(agg_config.lb_target_max_load, mean + band / 2))
    ceilings = dict(agg_config.lb_ceilings)
    for k, key in enumerate(scoring.METRICS):
        values = [load.values()[k] for load in loads if load.values()[k] is not None]
        # only a resource spread wider than the band is balanced (evening out a flat one costs moves)
        if ceilings.get(key) is not None and len(values) > 1 and statistics.pstdev(values) >= band / 2:
            ceilings[key] = min(ceilings[key], sum(values) / len(values) + band)
    return dataclasses.replace(agg_config, lb_ceilings=ceilings, **changes)


def balance_measures(agg_config, loads) -> tuple:
    """The measures (indexes into ``MEASURES``) level 5 evens out (together), spread widest first; () below level 5.

    Only a resource whose spread reaches half of ``LB_BALANCE_BAND_PCT`` is evened out, as
    ``balance_config`` balances it.
    """
    if agg_config.lb_level != settings.LB_BALANCE_LEVEL:
        return ()
    loads = list(loads)
    spreads = []
    for k, key in enumerate(scoring.METRICS):
        values = [load.values()[k] for load in loads if load.values()[k] is not None]
        if agg_config.lb_ceilings.get(key) is None or len(values) < 2:
            continue
        spread = statistics.pstdev(values)
        if spread >= settings.LB_BALANCE_BAND_PCT / 2:
            spreads.append((-spread, k + 1))
    return tuple(k for _, k in sorted(spreads))


def _calc(before: scoring.Load, after: scoring.Load, weights) -> HostLoadCalc:
    return HostLoadCalc(before.cpu_pct, after.cpu_pct, before.ram_pct, after.ram_pct,
                        before.net_pct, after.net_pct, scoring.syn_score(before, weights),
                        scoring.syn_score(after, weights))


def _capacities(hyper) -> tuple:
    """A host's capacity per metric of scoring.METRICS, as ``scoring.rescaled`` reads it."""
    def cap(rc):
        return hyper.inventories[rc].total if rc in hyper.inventories else None

    pages = sum(hp.page_size_kb * hp.total_pages for hp in hyper.hugepages or ()) or None
    return (cap(m.VCPU), cap(m.MEMORY_MB), hyper.net_capacity_mbps, pages)


def _tagged(entries, cls, grow=0.0, mean=0.0):
    """(rise of the squared deviation from ``mean`` taking ``grow``, host, cls) for each (value, host)."""
    for value, host in entries:
        yield grow * (2 * (value - mean) + grow), host, cls


@dataclasses.dataclass
class _Source:
    """An overloaded host being relieved in this plan."""

    name: str
    measures: tuple  # the measures that made it overloaded, relieved to their relief level
    movable: dict  # VM id -> VM, in host order
    tried: dict = dataclasses.field(default_factory=dict)  # VM id -> targets freed then
    rejections: dict = dataclasses.field(default_factory=dict)
    # failed attempts (rejections.Attempt) while it has no move; None once it has one
    attempts: Optional[list] = dataclasses.field(default_factory=list)
    version: int = 0
    best: Optional[tuple] = None  # what _Balancer._best returned when it was last pushed
    active: bool = True
    freed: bool = False  # counted as a possible target again


class _Balancer:
    """The mutable state of one LB plan: loads, scores, sources and sorted target lists."""

    def __init__(self, ctx, agg_config, busy, cooled, min_improvement_pct, max_moves,
                 no_migrate_key, max_rejected_hosts=None, refused=None, loads=None):
        self.ctx = ctx
        self.reserve = None  # reserve.ReserveGuard when the aggregate keeps a failover reserve
        self.refused = refused or {}  # VM id -> targets its live migration to failed recently
        self.max_rejected_hosts = max_rejected_hosts
        self._layout = None  # the rejections.Layout of failed attempts since the last move
        self.no_migrate_key = no_migrate_key
        self.cfg = agg_config
        self.weights = agg_config.lb_weights
        self.busy = busy
        self.cooled = cooled
        self.min_gain = min_improvement_pct
        self.max_moves = max_moves
        self.hyper = {h.name: h for h in ctx.hosts}
        # host -> load, a saturated CPU read by its VMs' demand (scoring.demand_load)
        self.loads = loads if loads is not None else {h.name: scoring.load_of(h) for h in ctx.hosts}
        self.scores = {n: scoring.syn_score(load, self.weights) for n, load in self.loads.items()}
        self._vms = {}  # host -> {VM id: VM} now, for the hosts this plan touched
        self.limits = (agg_config.lb_target_max_load,) + tuple(
            agg_config.lb_target_ceiling(key) for key in scoring.METRICS)
        self.moved = dict.fromkeys(self.hyper, 0)
        self.moves = []
        self.reasons = []
        self.sources = {}
        self.freed = 0  # how many times a host became a possible target again
        self.heap = []
        self._shares = {}
        self._class = {}
        self._rep = {}  # class -> one of its hosts (they rescale a VM's share alike)
        self._ratios = {}  # (source class, target class) -> capacity ratios per metric
        self._means = {}  # measure -> the aggregate's mean on it when first read (_mean_of)
        # measure -> class -> [(value, host)] of possible targets, sorted; kept for the
        # measures sources are relieved on only (see _build_lists)
        self.lists = [None for _ in MEASURES]
        # hosts already above a target limit, out of the lists: host -> that limit's name;
        # per name, how many of them are not sources (each placement counts them)
        self._closed = {}
        self.closed = collections.Counter()
        self.ineligible = {selector_mod.BUSY_HOST: 0, selector_mod.OFFLINE: 0}
        self.ineligible_hosts = {selector_mod.BUSY_HOST: [], selector_mod.OFFLINE: []}
        for h in ctx.hosts:
            if self.scores[h.name] is None:
                continue
            check = (selector_mod.BUSY_HOST if h.name in busy.hosts
                     else None if selector_mod.is_online(h) else selector_mod.OFFLINE)
            if check is not None:
                self.ineligible[check] += 1
                self.ineligible_hosts[check].append(h.name)
            else:
                load = self.loads[h.name]
                cls = self._class[h.name] = (_capacities(h), tuple(v is None for v in load.values()))
                self._rep.setdefault(cls, h)

    def vms_on(self, name) -> dict:
        """The VMs on host ``name`` now, by id, in host order."""
        vms = self._vms.get(name)
        if vms is None:
            vms = self._vms[name] = {vm.id: vm for vm in self.ctx.vms_by_host[name]}
        return vms

    def measures_of(self, name) -> tuple:
        return (self.scores[name],) + self.loads[name].values()

    def _build_lists(self):
        """Sort the possible targets, per class, on each measure some source is relieved on."""
        used = sorted({i for source in self.sources.values() for i in source.measures})
        self._closed.clear()  # level 5's balancing pass, before the relief, may have recorded some
        self.closed.clear()
        for i in used:
            self.lists[i] = {}
        for name in self._class:
            self._insert(name, grow=list.append)
        for i in used:
            for entries in self.lists[i].values():
                entries.sort()

    def _insert(self, name, grow=bisect.insort):
        values = self.measures_of(name)
        closed = self._closing_limit(values)
        if closed is not None:
            self._closed[name] = closed
            if name not in self.sources:
                self.closed[closed] += 1
            return
        cls = self._class[name]
        for i, per_class in enumerate(self.lists):
            if per_class is not None and values[i] is not None:
                grow(per_class.setdefault(cls, []), (values[i], name))

    def _closing_limit(self, values) -> Optional[str]:
        """The first target limit (in the order targets are checked) ``values`` are above.

        A host above one takes no VM: a VM's share only adds to every measure.
        """
        for i, (value, limit) in enumerate(zip(values, self.limits)):
            if limit is not None and value is not None and value > limit:
                return self._limit_name(i)
        return None

    def _remove(self, name):
        cls = self._class.get(name)
        if cls is None:
            return
        closed = self._closed.pop(name, None)
        if closed is not None:
            if name not in self.sources:
                self.closed[closed] -= 1
            return
        values = self.measures_of(name)
        for i, per_class in enumerate(self.lists):
            if per_class is not None and values[i] is not None:
                entries = per_class[cls]
                del entries[bisect.bisect_left(entries, (values[i], name))]

    def relief_levels(self):
        """Per measure, how far an overloaded host is relieved (see the module docstring)."""
        levels = []
        scored = [self.measures_of(n) for n in self.scores if self.scores[n] is not None]
        for i in range(len(MEASURES)):
            values = [measures[i] for measures in scored if measures[i] is not None]
            limit = self.limits[i]
            if not values or limit is None:
                levels.append(limit)
                continue
            levels.append(max(sum(values) / len(values), limit))
        # never above what still counts as overloaded
        levels[SCORE] = min(levels[SCORE], self.cfg.lb_overload_threshold)
        for i, key in enumerate(scoring.METRICS, 1):
            ceiling = self.cfg.lb_ceilings.get(key)
            if ceiling is not None and levels[i] is not None:
                levels[i] = min(levels[i], ceiling - 1e-6)
        self.relief = tuple(levels)

    def _skip_reason(self, vm, source):
        if vm.no_migr:
            return reasons.excluded_by_metadata(vm.id, self.no_migrate_key, source)
        if vm.id in self.busy.vms:
            return reasons.busy(vm.id, source)
        if vm.id in self.cooled:
            return reasons.cooldown(vm.id, source, after_snapshot=self.cooled[vm.id])
        if vm.status not in MIGRATABLE_STATUSES or vm.task_state is not None:
            return reasons.not_migratable(vm.id, source, vm.status, vm.task_state)
        return None

    def add_source(self, name, causes):
        movable = {}
        for vm in self.vms_on(name).values():
            why = self._skip_reason(vm, name)
            if why is None:
                movable[vm.id] = vm
            else:
                self.reasons.append(why)
        measures = tuple(MEASURES.index(measure) for measure, _, _ in causes)
        source = _Source(name, measures, movable)
        self.sources[name] = source
        self._push(source)

    def _unrelieved(self, source) -> list:
        """The measures of ``source`` still above their relief level."""
        values = self.measures_of(source.name)
        return [i for i in source.measures
                if values[i] is not None and values[i] - self.relief[i] > _EPS]

    def _share(self, vm, name, count) -> tuple:
        """(``vm``'s share of host ``name``, which has ``count`` VMs, as a Load, its values).

        Computed once per VM and host (and count, which only an estimated network share
        reads: see scoring.vm_share).
        """
        measured = vm.metrics is not None and vm.metrics.net_mbps is not None
        key = (vm.id, name) if measured else (vm.id, name, count)
        found = self._shares.get(key)
        if found is None:
            share = scoring.vm_share(vm, self.hyper[name], count)
            found = self._shares[key] = (share, share.values())
        return found

    def _best(self, source):
        """The best untried VM of ``source`` by benefit per cost: (key, vm, share), or None.

        Benefit: what the VM takes off each measure still above its relief level, below level
        5 at most ``RELIEF_CAP`` times that measure's excess over the level.
        """
        needs = self._unrelieved(source)
        if not needs:
            return None
        name = source.name
        # syn_score is a weighted mean: what a VM takes off it is the weighted mean of its
        # share, each part at most the host's own utilisation (Load.shifted clamps at 0)
        terms = self._score_terms(self.loads[name]) if SCORE in needs else ()
        tried = source.tried
        count = len(self.vms_on(name))
        caps = None  # measure -> the most of a VM's part counted (RELIEF_CAP); none at level 5
        if self.cfg.lb_level != settings.LB_BALANCE_LEVEL:
            now = self.measures_of(name)
            caps = {i: RELIEF_CAP * (now[i] - self.relief[i]) for i in needs}
        best = None
        for vm in source.movable.values():
            if vm.id in tried:
                continue
            share, values = self._share(vm, name, count)
            benefit = 0.0
            for i in needs:
                if i == SCORE:
                    part = 0.0
                    for k, weight, have in terms:
                        part += weight * min(have, values[k] or 0.0)
                else:
                    part = values[i - 1] or 0.0
                if part > 0:
                    benefit += part if caps is None else min(part, caps[i])
            if benefit <= _EPS:
                continue
            ram_mb = vm.flavor.ram_mb
            key = (-benefit / (ram_mb / 1024.0 + MIGRATION_COST_GB), ram_mb, vm.id)
            if best is None or key < best[0]:
                best = (key, vm, share)
        return best

    def _score_terms(self, load) -> tuple:
        """(metric index, normalised weight, utilisation) of the metrics syn_score reads."""
        present = [(k, self.weights.get(key, 0.0), value)
                   for k, (key, value) in enumerate(zip(scoring.METRICS, load.values()))
                   if value is not None and self.weights.get(key, 0.0) > 0]
        weight_sum = sum(weight for _, weight, _ in present)
        return tuple((k, weight / weight_sum, value) for k, weight, value in present)

    def _push(self, source):
        if self.moved[source.name] >= self.max_moves:
            self._release(source)
            return
        best = self._best(source)
        if best is None:
            self._release(source)
            return
        source.version += 1
        source.best = best
        heapq.heappush(self.heap, (best[0], source.name, source.version))

    def _release(self, source):
        """``source`` is done for now; not overloaded (and under the cap) it may be a target."""
        source.active = False
        name = source.name
        if (not source.freed and self.moved[name] < self.max_moves
                and not overload_causes(self.loads[name], self.scores[name], self.cfg)):
            source.freed = True
            self.freed += 1

    def run(self):
        """Relieve the sources until nothing more helps, then retry VMs new targets may take."""
        self._build_lists()
        while True:
            while self.heap:
                _, name, version = heapq.heappop(self.heap)
                source = self.sources[name]
                if version != source.version or not source.active:
                    continue
                # still its best: a source changes only by its own moves, each re-pushes it
                _, vm, share = source.best
                if not self._place(source, vm, share):
                    source.tried[vm.id] = self.freed
                self._push(source)
            if not self._retry():
                return

    def _retry(self) -> bool:
        """Give still-overloaded sources another go with VMs tried before a host was freed."""
        again = False
        for source in self.sources.values():
            if source.active or self.moved[source.name] >= self.max_moves:
                continue
            name = source.name
            if not overload_causes(self.loads[name], self.scores[name], self.cfg):
                continue
            stale = [vm_id for vm_id, freed in source.tried.items() if freed < self.freed]
            if not stale:
                continue
            for vm_id in stale:
                del source.tried[vm_id]
            source.active = True
            self._push(source)
            again = again or source.active
        return again

    def _place(self, source, vm, share) -> bool:
        """Move ``vm`` off ``source`` to the first acceptable target; False if none."""
        name = source.name
        hyper = self.hyper[name]
        src_load = self.loads[name]
        src_after_load = src_load.shifted(share, -1)
        src_before = self.measures_of(name)
        src_after = (scoring.syn_score(src_after_load, self.weights),) + src_after_load.values()
        causes = overload_causes(src_load, self.scores[name], self.cfg)
        gain_measures = tuple(MEASURES.index(c[0]) for c in causes) or source.measures
        order = max(gain_measures, key=lambda i: (src_before[i] - self.relief[i], -i))
        limits = self.limits
        request = self.ctx.selector.request_for(vm)
        rejections = source.rejections
        scans = []
        tails = []  # (cls, gain_end, limit_end): the hosts counted without being examined
        deltas = {}
        src_cls = self._class.get(name)
        for cls, entries in self.lists[order].items():
            delta = self._rescaled(share, hyper, src_cls, cls)
            deltas[cls] = delta
            grow = self._growth(delta, cls, order)
            src_gain = src_before[order] - src_after[order]
            end = len(entries)
            limit_end = end
            if limits[order] is not None:
                limit_end = bisect.bisect_right(entries, (limits[order] - grow + _EPS, _TOP))
            # the gap shrinks by at most src_gain + grow, and only for targets this low
            gain_end = 0 if src_gain + grow < self.min_gain - _EPS else bisect.bisect_right(
                entries, (src_before[order] - (src_gain + grow + self.min_gain) / 2 + _EPS, _TOP),
                0, limit_end)
            if gain_end < limit_end:
                rejections[NOT_ENOUGH_GAIN] = rejections.get(NOT_ENOUGH_GAIN, 0) + (
                    limit_end - gain_end)
            if limit_end < end:
                check = self._limit_name(order)
                rejections[check] = rejections.get(check, 0) + end - limit_end
            if gain_end < end:
                tails.append((cls, gain_end, limit_end))
            scans.append(_tagged(itertools.islice(entries, gain_end), cls, grow, self._mean_of(order)))
        for check, count in itertools.chain(self.ineligible.items(), self.closed.items()):
            if count:
                rejections[check] = rejections.get(check, 0) + count
        examined = []
        for _, target, cls in heapq.merge(*scans):
            if target == name or (target in self.sources and self.sources[target].active):
                continue
            t_load = self.loads[target]
            t_after_load = t_load.shifted(deltas[cls], 1)
            t_before = self.measures_of(target)
            t_after = (scoring.syn_score(t_after_load, self.weights),) + t_after_load.values()
            why = self._target_rejection(t_before, t_after, src_before, src_after, gain_measures)
            if why is None and target in self.refused.get(vm.id, ()):
                why = RECENT_FAILURE
            if why is None:
                why = self.ctx.selector.host_rejection(request, target)
            if why is None and self.reserve is not None:
                why = self.reserve.refusal(vm, request, name, target)
            if why is not None:
                rejections[why] = rejections.get(why, 0) + 1
                examined.append((target, why))
                continue
            self._apply(vm, request, source, target, src_after_load, t_after_load)
            return True
        if source.attempts is not None:
            source.attempts.append(self._attempt(vm.id, order, tails, examined))
        return False

    def _attempt(self, vm_id, order, tails, examined) -> rejections_mod.Attempt:
        """One failed attempt, kept by reference to this layout's frozen lists (see ``rejections``)."""
        if self._layout is None:
            self._layout = rejections_mod.Layout(self._closed)
        layout = self._layout
        limit = self._limit_name(order)
        kept = []
        for cls, gain_end, limit_end in tails:
            entries = self.lists[order][cls]
            frozen = layout.frozen((order, cls), entries)
            kept.append((frozen, gain_end, limit_end, NOT_ENOUGH_GAIN))
            kept.append((frozen, limit_end, len(entries), limit))
        return rejections_mod.Attempt(vm_id, examined, tuple(kept), layout)

    def rejected_of(self, source) -> tuple:
        """(per-host items, how many more) of the checks that rejected VMs of ``source``.

        The same hosts the counts of ``source.rejections`` count, attempt by attempt.
        """
        return rejections_mod.read(source.attempts or (), self.ineligible_hosts, self.sources,
                                   self.max_rejected_hosts)

    def _mean_of(self, i) -> float:
        """The aggregate's mean on measure ``i`` as the plan began (read once: targets are ordered from it)."""
        if i not in self._means:
            values = [v for v in (self.measures_of(h)[i] for h in self.loads) if v is not None]
            self._means[i] = sum(values) / len(values) if values else 0.0
        return self._means[i]

    def ratio_of(self, src_cls, cls) -> tuple:
        """What a point of a host of class ``src_cls`` is worth on a host of class ``cls``, per metric."""
        key = (src_cls, cls)
        ratios = self._ratios.get(key)
        if ratios is None:
            ratios = self._ratios[key] = scoring.rescaled(_UNIT, self._rep[src_cls], self._rep[cls]).values()
        return ratios

    def _rescaled(self, share, hyper, src_cls, cls) -> scoring.Load:
        """``share`` of ``hyper`` (of class ``src_cls``) in % of a host of class ``cls``."""
        key = (src_cls, cls)
        ratios = self._ratios.get(key) if src_cls is not None else None
        if ratios is None:
            ratios = scoring.rescaled(_UNIT, hyper, self._rep[cls]).values()
            if src_cls is not None:
                self._ratios[key] = ratios
        return scoring.Load(*(None if value is None else value * factor
                              for value, factor in zip(share.values(), ratios)))

    def _target_rejection(self, t_before, t_after, src_before, src_after, gain_measures):
        """The planner's own check a target fails (limits, then gain), or None."""
        if t_after[SCORE] is None or t_after[SCORE] > self.limits[SCORE]:
            return TARGET_LOAD_LIMIT
        for i in range(1, len(MEASURES)):
            limit = self.limits[i]
            if limit is not None and t_after[i] is not None and t_after[i] > limit:
                return self._limit_name(i)
        for i in gain_measures:
            if t_before[i] is None or t_after[i] is None:
                return NO_SCORE
            if (src_before[i] - t_before[i]) - abs(src_after[i] - t_after[i]) < self.min_gain:
                return NOT_ENOUGH_GAIN
        return None

    @staticmethod
    def _limit_name(i) -> str:
        return TARGET_LOAD_LIMIT if i == SCORE else "lb_ceilings.%s" % MEASURES[i]

    def _growth(self, delta, cls, i) -> float:
        """How much measure ``i`` of a host of class ``cls`` grows when it takes ``delta``."""
        if i != SCORE:
            return delta.values()[i - 1] or 0.0
        missing = cls[1]
        total = weight_sum = 0.0
        for k, key in enumerate(scoring.METRICS):
            weight = self.weights.get(key, 0.0)
            if weight > 0 and not missing[k]:
                weight_sum += weight
                total += weight * (delta.values()[k] or 0.0)
        return total / weight_sum if weight_sum else 0.0

    def _apply(self, vm, request, source, target, src_after_load, t_after_load):
        name = source.name
        weights = self.weights
        calc = LoadCalculation(_calc(self.loads[name], src_after_load, weights),
                               _calc(self.loads[target], t_after_load, weights))
        self.ctx.ledger.move(vm, request.resources, target)
        self._layout = None  # the lists change: a later failed attempt freezes them again
        for host, load, score in ((name, src_after_load, calc.source.syn_score_after_pct),
                                  (target, t_after_load, calc.target.syn_score_after_pct)):
            self._remove(host)
            self.loads[host], self.scores[host] = load, score
            self.moved[host] += 1
            if self.moved[host] < self.max_moves and host in self._class:
                self._insert(host)
        del self.vms_on(name)[vm.id]
        self.vms_on(target)[vm.id] = vm
        del source.movable[vm.id]
        source.attempts = None  # it has a move: no "no target" reason to explain
        self.moves.append(PlannedMove(vm.id, LIVE_MIGRATE, name, target, load=calc,
                                      ram_mb=vm.flavor.ram_mb))
        if self.reserve is not None:
            self.reserve.moved(vm, name, target)

    def explain(self, source):
        """Why ``source`` got no move (only asked when it got none)."""
        if source.rejections:
            rejected, more = self.rejected_of(source)
            return reasons.no_target("overloaded %s (counts are VM x host checks)" % source.name,
                                     source.rejections, host=source.name, rejected=rejected,
                                     more=more)
        return reasons.not_improving(source.name, self.scores[source.name])


class _Evener:
    """Level 5's balancing pass over one plan: which moves narrow the spreads of ``measures`` most.

    A host's deviation is its value less the aggregate's mean on each measure, read once as
    the pass begins. A move of a VM of share ``x`` (``y`` on the target, rescaled to its
    capacity) off a host at deviation ``d_s`` onto one at ``d_t`` lowers the sum of squared
    deviations by ``x (2 d_s - x) - y (2 d_t + y)`` per measure; its worth is that sum over
    the measures per GB of RAM it copies plus ``MIGRATION_COST_GB``. Hosts are ordered per
    direction (each measure's deviation, and their sum when there are several): each step
    pairs the ``EVEN_SOURCES`` hosts highest in each direction with, per class of capacity,
    the ``EVEN_TARGETS`` lowest, and moves the VM of the pair of most worth that passes
    every check a relief move passes (``_Balancer._target_rejection`` on the measure the
    move narrows most, a failed move's cool-down, the Nova filters, capacity and server
    groups, the failover reserve) within the per-host move cap. Hosts whose metrics are
    settling (``settling``) are left out, as the relief leaves them. The best VM of each pair is
    kept until either host moves. The pass ends when no pair has a VM worth
    ``settings.LB_BALANCE_WORTH``; a host a check refused every VM of the pairs it is in
    drops out of them.
    """

    def __init__(self, balancer, measures, settling=()):
        b = self.b = balancer
        self.measures = tuple(measures)
        # a host whose metrics predate a move (``settling_hosts``) is neither a source nor a target
        hosts = [n for n in b._class
                 if n not in settling and None not in (b.measures_of(n)[k] for k in self.measures)]
        self.means = tuple(sum(b.measures_of(n)[k] for n in hosts) / len(hosts) if hosts else 0.0
                           for k in self.measures)
        width = len(self.measures)
        self.directions = [(j,) for j in range(width)] + ([tuple(range(width))] if width > 1 else [])
        self.keys = {}  # host -> its key per direction
        self.listed = {}  # host -> the orders it is in: ("high", direction) or ("low", direction, class)
        self.orders = {}  # each sorted by key
        for name in hosts:
            self._insert(name, grow=list.append)
        for order in self.orders.values():
            order.sort()
        self.version = collections.Counter()  # host -> its moves in this pass
        self.pairs = {}  # (source, target) -> (source version, target version, best or None)
        self.heap = []  # (-worth, source, target, source version, target version) of the pairs' best
        self.paired = (set(), set())  # the sources and targets of the last step
        self.givers = {}  # host -> (version, its _Source, [(vm, share, parts, squares off it, cost)])
        self.refused = collections.defaultdict(set)  # target -> VM ids a check refused there
        self.blocked = set()  # hosts a check refused every VM of their pairs
        self.spent = {mv.vm_id for mv in b.moves}  # VMs this plan moved already

    def run(self):
        """Move VMs while one is worth it (class docstring)."""
        dirty = set()  # hosts whose pairs to compute again
        while True:
            sources, targets = self._ends()
            old_sources, old_targets = self.paired
            for s in sources:
                fresh = s in dirty or s not in old_sources
                for t in targets:
                    if s != t and (fresh or t in dirty or t not in old_targets):
                        self._pair(s, t)
            self.paired = (set(sources), set(targets))
            dirty = set()
            best = self._top()
            if best is None:
                return
            s, t, (_, vm, share) = best
            if self._move(vm, share, s, t):
                dirty.update((s, t))
                continue
            self.refused[t].add(vm.id)
            del self.pairs[(s, t)]
            self._pair(s, t)
            for host, pairs in ((t, [(x, t) for x in sources]), (s, [(s, x) for x in targets])):
                if all(self.pairs.get(pair, (0, 0, None))[2] is None for pair in pairs if pair[0] != pair[1]):
                    self.blocked.add(host)

    def deviation(self, name) -> tuple:
        values = self.b.measures_of(name)
        return tuple(values[k] - mean for k, mean in zip(self.measures, self.means))

    def _insert(self, name, grow=bisect.insort):
        dev = self.deviation(name)
        keys = self.keys[name] = [sum(dev[j] for j in direction) for direction in self.directions]
        cls = self.b._class[name]
        listed = self.listed[name] = []
        for d, key in enumerate(keys):
            for where in (("high", d), ("low", d, cls)):
                listed.append(where)
                grow(self.orders.setdefault(where, []), (key, name))

    def _remove(self, name):
        if name in self.keys:
            for where in list(self.listed[name]):
                self._drop(name, where)
            del self.keys[name], self.listed[name]

    def _drop(self, name, where):
        """Take ``name`` out of the order ``where`` until it moves again."""
        order = self.orders[where]
        del order[bisect.bisect_left(order, (self.keys[name][where[1]], name))]
        self.listed[name].remove(where)

    def _ends(self) -> tuple:
        """(sources, targets): per direction the highest open hosts above the mean, per direction and class the lowest.

        A host that cannot be one (move cap, a target limit, nothing of it passes) leaves that
        end of the order until it moves again.
        """
        b = self.b
        sources, targets = [], []
        for where, order in self.orders.items():
            found, high = 0, where[0] == "high"
            i = len(order) - 1 if high else 0
            while 0 <= i < len(order) and found < (EVEN_SOURCES if high else EVEN_TARGETS):
                key, name = order[i]
                if (key <= 0) if high else (key >= 0):
                    break
                if (name in self.blocked or b.moved[name] >= b.max_moves
                        or (not high and b._closing_limit(b.measures_of(name)) is not None)
                        or (high and not self._giver(name)[2])):
                    self._drop(name, where)
                    if not high:
                        continue
                else:
                    found += 1
                    chosen = sources if high else targets
                    if name not in chosen:
                        chosen.append(name)
                i += -1 if high else 1
        return sources, targets

    def _giver(self, name) -> tuple:
        """(version, ``name`` as a _Source, what each of its movable VMs takes off it).

        Per VM: (vm, share, its parts of the measures, the squared deviations its leaving
        removes, its cost in GB).
        """
        found = self.givers.get(name)
        version = self.version[name]
        if found is not None and found[0] == version:
            return found
        b = self.b
        source = found[1] if found is not None else _Source(name, (), {
            vm.id: vm for vm in b.vms_on(name).values() if b._skip_reason(vm, name) is None}, active=False)
        dev = self.deviation(name)
        count = len(b.vms_on(name))
        offers = []
        for vm in source.movable.values():
            if vm.id in self.spent:
                continue
            share, values = b._share(vm, name, count)
            parts = tuple(values[k - 1] or 0.0 for k in self.measures)
            offers.append((vm, share, parts, sum(x * (2 * d - x) for x, d in zip(parts, dev)),
                           vm.flavor.ram_mb / 1024.0 + MIGRATION_COST_GB))
        found = self.givers[name] = (version, source, offers)
        return found

    def _pair(self, source, target):
        """Keep the VM of ``source`` whose move to ``target`` is of most worth, if it is worth moving."""
        b = self.b
        ratios = b.ratio_of(b._class[source], b._class[target])
        values = b.measures_of(target)
        # per measure: (rescaling, 2 x deviation, the most a share may be before a target limit)
        terms = []
        for k, d in zip(self.measures, self.deviation(target)):
            r, limit = ratios[k - 1], b.limits[k]
            terms.append((r, 2 * d, math.inf if limit is None else (limit - values[k]) / r))
        least = settings.LB_BALANCE_WORTH
        refused = self.refused.get(target, ())
        best = None
        for vm, share, parts, gain, cost in self._giver(source)[2]:
            for x, (r, twice, most) in zip(parts, terms):
                if x > most:
                    break
                y = x * r
                gain -= y * (twice + y)
            else:
                worth = gain / cost
                if worth >= least and (best is None or worth > best[0]) and vm.id not in refused:
                    best = (worth, vm, share)
        versions = (self.version[source], self.version[target])
        self.pairs[(source, target)] = versions + (best,)
        if best is not None:
            heapq.heappush(self.heap, (-best[0], source, target) + versions)

    def _top(self):
        """(source, target, (worth, vm, share)) of most worth among the current pairs, or None."""
        sources, targets = self.paired
        while self.heap:
            _, s, t, vs, vt = self.heap[0]
            entry = self.pairs.get((s, t))
            if (s in sources and t in targets and entry is not None and entry[2] is not None
                    and entry[:2] == (vs, vt) == (self.version[s], self.version[t])
                    and -self.heap[0][0] == entry[2][0]):
                return s, t, entry[2]
            heapq.heappop(self.heap)
        return None

    def _move(self, vm, share, name, low) -> bool:
        """Move ``vm`` off ``name`` to ``low`` if every check passes; False if one refuses it."""
        b = self.b
        moved_in = b._rescaled(share, b.hyper[name], b._class[name], b._class[low])
        src_after_load = b.loads[name].shifted(share, -1)
        t_after_load = b.loads[low].shifted(moved_in, 1)
        src_before, t_before = b.measures_of(name), b.measures_of(low)
        src_after = (scoring.syn_score(src_after_load, b.weights),) + src_after_load.values()
        t_after = (scoring.syn_score(t_after_load, b.weights),) + t_after_load.values()
        # the gain check on the measure whose source-target gap the move narrows most
        main = max(self.measures, key=lambda k: (src_before[k] - t_before[k]) ** 2 - (src_after[k] - t_after[k]) ** 2)
        if (b._target_rejection(t_before, t_after, src_before, src_after, (main,)) is not None
                or low in b.refused.get(vm.id, ())):
            return False
        request = b.ctx.selector.request_for(vm)
        if (b.ctx.selector.host_rejection(request, low) is not None
                or (b.reserve is not None and b.reserve.refusal(vm, request, name, low) is not None)):
            return False
        for host in (name, low):
            self._remove(host)
        b._apply(vm, request, self._giver(name)[1], low, src_after_load, t_after_load)
        self.spent.add(vm.id)
        for host in (name, low):
            self.version[host] += 1
            if b.moved[host] < b.max_moves:
                self._insert(host)
        return True


def plan_balancing(snapshot, app_config, agg_config, busy: m.BusySet = m.BusySet(), *,
                   recent_moves: Optional[dict] = None, recent_failures: Optional[dict] = None,
                   now_s: float = 0.0, cooldown_s: float = DEFAULT_COOLDOWN_S,
                   min_improvement_pct: Optional[float] = None,
                   max_moves_per_host: int = DEFAULT_MAX_MOVES_PER_HOST,
                   index=None, filter_options=None, max_rejected_hosts: Optional[int] = None,
                   heartbeat_stale_after_s: Optional[float] = None,
                   failover_max_k: int = failover.MAX_SEARCHED_K,
                   overloaded_runs: Optional[dict] = None, moved_hosts: Optional[dict] = None) -> Plan:
    """Plan the live migrations of one aggregate's LB run (period check excluded).

    ``recent_moves`` maps VM id to when KeyVRM last moved it; such a VM stays put until
    ``cooldown_s`` has passed at ``now_s``, and is never planned from a snapshot taken
    before that move (its load there is where it was). ``recent_failures`` maps (VM id,
    target) to when that live migration last failed: within the cool-down the VM may go
    elsewhere but is not sent there again (check ``recent_failure``), so LB does not ask
    Nova each ``lb_period`` for the move that just failed. Nothing is planned from a
    snapshot whose Nova or Placement source failed (its hosts, VMs or capacity are
    partial). Hosts ``planning.ha.unfit_targets`` names (a stale heartbeat, a fence
    interface down) receive no VM. The cyclic garbage collector is paused meanwhile (see
    gc_pause). A source without a target lists at most ``max_rejected_hosts`` (host,
    check) items (None: all), counting the others. On an aggregate HA runs on, no move
    spends its failover reserve (``ha_failover_reserve`` hosts, searched up to
    ``failover_max_k``; check ``failover_reserve``, see ``planning.reserve``).

    A move must narrow its source-target gap by ``min_improvement_pct`` points (None: the
    aggregate's ``lb_min_gain``). ``overloaded_runs`` maps a host to how many consecutive LB
    runs before this one found it overloaded (``overload_streaks``): a host overloaded in
    fewer than ``lb_persistence`` consecutive runs, this one included, is not relieved yet
    (``lb_imbalance_pending``, with its count). ``moved_hosts`` maps a host to when KeyVRM's
    last move off or onto it ended; with the moves Nova's migration records in the snapshot
    show (an operator's too), a host moved within the metrics window is neither a source
    nor a target (``metrics_settling``, see ``settling_hosts``).
    """
    failed = [name for name in PLANNED_FROM if not snapshot.source_ok(name)]
    if failed:
        return Plan((), (reasons.source_failed(agg_config.name, [(name, _source_error(snapshot, name))
                                                                 for name in failed]),))
    cooled = {vm_id: at >= snapshot.taken_at for vm_id, at in (recent_moves or {}).items()
              if now_s - at < cooldown_s or at >= snapshot.taken_at}
    refused = collections.defaultdict(set)
    for (vm_id, target), at in (recent_failures or {}).items():
        if now_s - at < cooldown_s:
            refused[vm_id].add(target)
    index = index or snapshot.index()
    unfit = ha_planning.unfit_targets(snapshot, app_config, agg_config.name, heartbeat_stale_after_s, index)
    settling = settling_hosts(snapshot, moved_hosts)
    unfit = dict(unfit, **{host: reasons.METRICS_SETTLING for host in settling if host not in unfit})
    if min_improvement_pct is None:
        min_improvement_pct = agg_config.lb_min_gain
    with gc_pause.cycle_collection_paused():
        return _plan_balancing(snapshot, app_config, agg_config, busy, cooled, refused, unfit,
                               min_improvement_pct, max_moves_per_host, index, filter_options,
                               max_rejected_hosts, failover_max_k, overloaded_runs or {}, settling)


def settling_hosts(snapshot, moved_hosts: Optional[dict]) -> dict:
    """Hosts a move left or reached within the snapshot's metrics window: {host: seconds before the snapshot}.

    The moves are KeyVRM's (``moved_hosts`` maps a host to when, POSIX, KeyVRM's last move
    off or onto it ended) and every one Nova's migration records in the snapshot show,
    whoever asked for it (an operator's live migration, a resize), timed by the record's
    last update; one under way counts, one that ended with the VM where it was
    (``MOVED_NOTHING``) does not. (Nova updates an evacuation's record again, ``completed``,
    when its source's compute comes back: its target then waits one window more.) Their
    metrics average a window that began before that move: they show the host as it was,
    so LB neither relieves nor fills it until metrics taken after the move.
    """
    last = dict(moved_hosts or {})
    for migration in snapshot.migrations:
        at = migration.updated_at or migration.created_at
        if migration.status in MOVED_NOTHING or at is None:
            continue
        for host in (migration.source_host, migration.dest_host):
            if host is not None and at > last.get(host, float("-inf")):
                last[host] = at
    since = snapshot.taken_at - snapshot.metrics_window_s
    return {host: max(0.0, snapshot.taken_at - at) for host, at in last.items() if since < at}


def _source_error(snapshot, name):
    status = snapshot.sources.get(name)
    return status.error if status is not None else None


def _plan_balancing(snapshot, app_config, agg_config, busy, cooled, refused, unfit,
                    min_improvement_pct, max_moves_per_host, index, filter_options,
                    max_rejected_hosts, failover_max_k, overloaded_runs, settling) -> Plan:
    ctx = build_context(snapshot, agg_config.name, app_config.nova_filters, busy, index,
                        filter_options, unfit_hosts=unfit)
    loads = {h.name: scoring.demand_load(h, ctx.vms_by_host[h.name]) for h in ctx.hosts}
    agg_config = balance_config(agg_config, loads.values())
    aggregate = agg_config.name
    huge, ordinary = hugepages_mix(list(itertools.chain.from_iterable(ctx.vms_by_host.values())))
    if huge and ordinary:
        return Plan((), (reasons.mixed_hugepages(aggregate, huge, ordinary),))
    balancer = _Balancer(ctx, agg_config, busy, cooled, min_improvement_pct,
                         max_moves_per_host, app_config.lb_no_migrate_key, max_rejected_hosts,
                         refused, loads)
    balancer.reserve = reserve.reserve_guard(ctx, snapshot, app_config, agg_config, busy,
                                             lambda host: balancer.vms_on(host).values(), failover_max_k)
    found = [] if app_config.nova_filters else [reasons.no_filters()]
    unscored = [h.name for h in ctx.hosts if balancer.scores[h.name] is None]
    if ctx.hosts and len(unscored) == len(ctx.hosts):
        return Plan((), tuple(found + [reasons.no_metrics(aggregate=aggregate)]))
    found.extend(reasons.no_metrics(host=name) for name in unscored)
    causes, unsettled = {}, []
    for h in ctx.hosts:
        why = overload_causes(balancer.loads[h.name], balancer.scores[h.name], agg_config)
        if why and h.name in settling:  # overloaded, but its metrics predate a move
            unsettled.append((h.name, settling[h.name]))
        elif why:
            causes[h.name] = why
    if unsettled:
        found.extend(reasons.metrics_settling(aggregate, unsettled, snapshot.metrics_window_s))
    if not causes:
        return Plan((), tuple(found + ([] if unsettled else [reasons.no_overload(
            aggregate, agg_config.lb_overload_threshold, agg_config.lb_ceilings)])))
    worst = sorted(causes, key=lambda n: (-max(v - limit for _, v, limit in causes[n]), n))
    runs = {n: overloaded_runs.get(n, 0) + 1 for n in worst}
    waiting = [n for n in worst if runs[n] < agg_config.lb_persistence]
    if waiting:
        found.extend(reasons.imbalance_pending(aggregate, [(n, causes[n], runs[n]) for n in waiting],
                                               agg_config.lb_persistence))
        worst = [n for n in worst if runs[n] >= agg_config.lb_persistence]
        if not worst:
            return Plan((), tuple(found))
    # what this run acts on comes first: it names the event, not an unscored dead host
    found[:0] = reasons.overloaded(aggregate, [(n, causes[n]) for n in worst])
    balancer.relief_levels()
    spreads = balance_measures(agg_config, balancer.loads.values())  # read before any move
    evened = []
    while spreads:  # evening some resources out may widen another's spread past the band: it joins them
        evened = sorted(evened + list(spreads))
        _Evener(balancer, evened, settling).run()
        spreads = [k for k in balance_measures(agg_config, balancer.loads.values()) if k not in evened]
    for source in worst:
        if source in busy.hosts:
            found.append(reasons.busy(None, source))
            continue
        balancer.add_source(source, causes[source])
    balancer.run()
    tried = [n for n in worst if n in balancer.sources]
    if tried and not balancer.moves:  # what this run found first: LB is stuck, not healthy
        found.insert(0, reasons.lb_no_target(aggregate, len(tried)))
    moved_from = {mv.source for mv in balancer.moves}
    explained = [balancer.explain(balancer.sources[n]) for n in worst
                 if n in balancer.sources and n not in moved_from]
    unchecked = reasons.filter_input_unknown(ctx.selector.unchecked.summary())
    return Plan(tuple(balancer.moves), tuple(found + balancer.reasons + explained + unchecked))
