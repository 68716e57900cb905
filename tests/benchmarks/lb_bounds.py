"""Lower bounds on the migrations an LB plan needs, for ``tests/benchmarks/bench_lb.py``.

All read each resource by demand (``scoring.demand_load``) and a VM's part of it as
``scoring.vm_share``; a VM that may not move (``no_migr``) never counts.

``moves_to_limit``: the least migrations that bring every host at or above the
resource's ceiling to the target ceiling (ceiling less the hysteresis). Exact for the
sources: a host needs at least as many VMs off it as its largest shares take to cover
its excess (no set of r VMs covers more than the r largest), and whole VMs move. It
ignores the targets (any host may take anything), so no plan can do with fewer.

``moves_to_sd``: ``LB(sd)``, the least migrations for which an optimistic relaxation
reaches a standard deviation of ``sd`` points. The mean stays where it was; a move takes
at most one VM's share off a host above the mean, and never more than that host's excess
(it may take part of a VM: fractional); what moves lands as a fluid on the hosts below
the mean, filled from the lowest up (water-filling), a point of a source as a point of
its receiver. Above the mean the best r removals of a host
are its r largest shares and the gain of each further one shrinks (concave), so taking
the best next gain over all hosts minimises the spread above the mean for every count
of moves; the most load k moves can carry is found the same way, and the spread below
the mean for that load is its least. The sum of the two least parts is at most what any
plan of k moves reaches, so a plan that reaches ``sd`` with M moves has M >= LB(sd).
That argument holds for plans whose moves all leave hosts above the mean and take none of
them below it: a move off a host below the mean (from one just under it to one far under
it narrows the spread) or past it (a source whose whole VM overshoots its excess onto a
host short of as much) is not in it. ``moves_to_sds`` below needs neither assumption and,
on every region of the benchmark, is at least LB(sd), so there LB(sd) is a lower bound
too. On hosts of one capacity that is a proof; the benchmark's hosts have 48, 64 or 96
cores, where a point moved is worth 0.5-2 points of its receiver and the mean moves by what
the moves carry across capacities (the benchmark prints how far: ``mean_shift``), so there
it is the bound of this accounting (as for every bound below).

``gb_to_limit``: the least GB of RAM a plan that takes every hot host to the target limit
copies, whatever its count of moves (exact for the sources, as ``moves_to_limit``).

``gb_for_moves``: GB(M), the least GB of RAM a plan of exactly M migrations that takes
every hot host to the target limit copies. The same relaxation (the sources exact, where
the VMs land ignored): a plan relieving hot host h moves a set of its movable VMs whose
shares cover its excess (what lands on h only adds to it), so with k VMs off h it copies at
least the least RAM of k of them that cover it (exact per count, by dynamic programming
over the sets' (GB, share) sums); its moves off other hosts copy at least the smallest
movable VM's RAM each. The least total over the split of M between the hot hosts (a
min-plus convolution over their counts) and the rest is GB(M): no relieving plan of M
moves copies less. GB(M) >= ``gb_to_limit``, and equals it once M allows each hot host
its least-RAM covering set.

``moves_to_sds``: LBjoint, the least migrations that can bring the CPU spread to ``a``
and the RAM spread to ``b`` in one plan (level 5 evens out both). For one resource, let
d_i be host i's deviation from the mean, y_i after a plan (a point leaving one host is a
point landing on another, so sum y_i = 0) and w any level: sum y_i^2 = sum (y_i - w)^2 -
n w^2. If k_i VMs leave host i, y_i >= l_i = d_i - S_i(k_i), S_i(k) its k largest movable
shares (what lands on it only adds); if none lands on it, y_i <= d_i. So (y_i - w)^2 >=
(l_i - w)+^2 + (w - d_i)+^2 for a host no VM lands on, and >= (l_i - w)+^2 for one that
receives ((x)+ = max(x, 0); l_i <= d_i, so at most one term is positive). A migration
leaves one host and lands on one host: sum k_i = M, and at most M hosts receive. For two
resources and a weight lam in [0, 1], a plan reaching sd_cpu <= a and sd_ram <= b has lam
SS_cpu + (1 - lam) SS_ram <= n (lam a^2 + (1 - lam) b^2) (SS: the sum of squared
deviations, n sd^2), and the left side is at least, per host, lam times its CPU terms plus
(1 - lam) times its RAM terms, with one k_i and one set of receivers for both resources (a
migration carries a VM's CPU and RAM off one host onto one host), minus n (lam w_cpu^2 +
(1 - lam) w_ram^2). S_i^cpu(k) and S_i^ram(k) are each the largest k VMs can carry (one set
of k VMs may carry less of both: still a bound; the exact (CPU, RAM) sums of each count of
a host's VMs, tried before the receivers were counted, gave the same figure on the 300-host
RAM-hot region of seed 1). Per host the source
part is convex in k_i (S_i is concave, (x)+^2 convex and increasing), so the M largest
marginal gains over all hosts give its least over sum k_i = M; the receiver part takes the
M largest (w - d_i)+^2 terms. The least M whose lower bound is within the budget bounds
the moves of every plan reaching both spreads, for every lam, w_cpu and w_ram; LBjoint is
the largest over lam = 0, 0.1, ..., 1 (0 and 1: one resource alone) at levels found by
alternation from w = -sd: for the moves and receivers the bound chose, the levels that maximise it
(the bound is concave in w, largest where sum clamp(w, l_i, u_i) = 0, u_i = d_i for a host
that receives nothing, else unbounded), repeated a few rounds. Any lam and levels give a
valid bound; the search only tightens it. It assumes nothing of the sources (above or
below the mean, past it or not), so with lam = 0 or 1 it is also a proof of the
single-resource bound where LB(sd)'s accounting needs its assumptions.

``relief_floors``: the least ratio to LB(sd) that a plan relieving every hot host to the
target limit with M moves can have, in LB(sd)'s accounting (the cost of relieving every hot host, rather than
spending the same moves where they narrow the spread most).
"""

import bisect
import collections
import heapq
import itertools
import math

from keyvrm.scheduling import scoring


def _hot_values(snap, hot):
    """(host, demand load on ``hot``, [movable VM shares on ``hot``, largest first])."""
    index = snap.index()
    k = ("cpu", "ram", "net").index(hot)
    rows = []
    for h in snap.hypervisors:
        vms = index.vms_on(h.name)
        value = scoring.demand_load(h, vms).values()[k]
        if value is None:
            continue
        shares = sorted((scoring.vm_share(vm, h, len(vms)).values()[k] or 0.0
                         for vm in vms if not vm.no_migr), reverse=True)
        rows.append((h, value, shares))
    return rows


def _relief_count(value, shares, ceiling, target):
    """The least VMs (largest shares first) that take a host at/above ``ceiling`` to ``target``.

    0 under the ceiling, None if its movable VMs cannot.
    """
    if value < ceiling:
        return 0
    excess, taken = value - target, 0.0
    for count, share in enumerate(shares, 1):
        taken += share
        if taken >= excess - 1e-9:
            return count
    return None


def moves_to_limit(snap, hot, ceiling, target) -> int:
    """The least migrations that take every host at/above ``ceiling`` down to ``target`` (docstring)."""
    total = 0
    for _, value, shares in _hot_values(snap, hot):
        count = _relief_count(value, shares, ceiling, target)
        if count is None:
            return math.inf  # its movable VMs cannot relieve it
        total += count
    return total


def gb_to_limit(snap, hot, ceiling, target) -> float:
    """The least GB of RAM whose live migration takes every host at/above ``ceiling`` to ``target``.

    Per hot host, the least RAM of a set of its movable VMs whose shares cover its excess (a
    knapsack, exact by dynamic programming over RAM in whole GB, every VM's RAM rounded down
    to the GB), summed; whatever the count of moves, no plan relieving them copies less.
    """
    index = snap.index()
    k = ("cpu", "ram", "net").index(hot)
    total = 0
    for h in snap.hypervisors:
        vms = index.vms_on(h.name)
        value = scoring.demand_load(h, vms).values()[k]
        if value is None or value < ceiling:
            continue
        items = [(vm.flavor.ram_mb // 1024, scoring.vm_share(vm, h, len(vms)).values()[k] or 0.0)
                 for vm in vms if not vm.no_migr]
        most = [0.0] + [-1.0] * sum(gb for gb, _ in items)  # most share for exactly this many GB
        for gb, share in items:
            for budget in range(len(most) - 1, gb - 1, -1):
                if most[budget - gb] >= 0 and most[budget - gb] + share > most[budget]:
                    most[budget] = most[budget - gb] + share
        need = value - target - 1e-9
        covering = [budget for budget, share in enumerate(most) if share >= need]
        if not covering:
            return math.inf
        total += covering[0]
    return float(total)


def _gains(excesses_shares, gain, start=None):
    """Per move, the best next ``gain(excess, taken_before, share)`` over all hosts (greedy, concave).

    Each host starts from ``start[i]`` = (moves already off it, points they took).
    """
    heap = []
    for i, (excess, shares) in enumerate(excesses_shares):
        r, taken = start[i] if start else (0, 0.0)
        if r < len(shares) and taken < excess:
            heapq.heappush(heap, (-gain(excess, taken, shares[r]), i, r, taken))
    while heap:
        neg, i, r, taken = heapq.heappop(heap)
        yield -neg
        excess, shares = excesses_shares[i]
        taken = min(excess, taken + shares[r])
        if r + 1 < len(shares) and taken < excess:
            heapq.heappush(heap, (-gain(excess, taken, shares[r + 1]), i, r + 1, taken))


class _Relaxation:
    """The relaxation of ``moves_to_sd`` on one region and resource: its parts above and below the mean."""

    def __init__(self, snap, hot):
        self.rows = _hot_values(snap, hot)
        self.n = len(self.rows)
        self.mean = mean = sum(value for _, value, _ in self.rows) / self.n
        self.above = [(value - mean, shares) for _, value, shares in self.rows if value > mean]
        self.below = sorted(value for _, value, _ in self.rows if value < mean)
        self.prefix, self.squares = [0.0], [0.0]
        for value in self.below:
            self.prefix.append(self.prefix[-1] + value)
            self.squares.append(self.squares[-1] + value * value)
        self.spread_above = sum(e * e for e, _ in self.above)

    def below_spread(self, load):
        """The least sum of squares below the mean once ``load`` points were poured in."""
        below, prefix, squares, mean = self.below, self.prefix, self.squares, self.mean
        if not below:
            return 0.0
        lo, hi = below[0], mean
        for _ in range(60):  # the water level, by bisection
            level = (lo + hi) / 2
            j = bisect.bisect_left(below, level)
            if level * j - prefix[j] > load:
                hi = level
            else:
                lo = level
        j = bisect.bisect_left(below, lo)
        rest, total, total_sq = len(below) - j, prefix[-1] - prefix[j], squares[-1] - squares[j]
        return (mean - lo) ** 2 * j + rest * mean * mean - 2 * mean * total + total_sq

    def curves(self, forced=None):
        """(forced moves, their square gain, their mass, further square gains, further masses) above the mean.

        ``forced[i]``: the least moves off the i-th host above the mean; they are its largest
        shares (no other set of as many takes more), and the further moves come greedily.
        """
        forced = forced or {}
        start, square, mass = [], 0.0, 0.0
        for i, (excess, shares) in enumerate(self.above):
            r = forced.get(i, 0)
            taken = min(excess, sum(shares[:r]))
            square += excess * excess - (excess - taken) ** 2
            mass += taken
            start.append((r, taken))
        squares = _gains(self.above, lambda e, t, s: (e - t) ** 2 - (e - min(e, t + s)) ** 2, start)
        masses = _gains(self.above, lambda e, t, s: min(e, t + s) - t, start)
        return sum(forced.values()), square, mass, squares, masses

    def sums(self, forced=None):
        """(moves, least sum of squared deviations) per count of moves, from the forced ones to the last gain.

        The sums never rise.
        """
        count, square, mass, square_gain, mass_gain = self.curves(forced)
        spread_above = self.spread_above - square
        while True:
            yield count, spread_above + self.below_spread(mass)
            try:
                spread_above -= next(square_gain)
                mass += next(mass_gain)
            except StopIteration:
                return
            count += 1

    def least_moves(self, sd_sum, limit=None):
        """The least moves whose least sum of squares is at most ``sd_sum``; None past ``limit`` or the gains."""
        for count, total in self.sums():
            if limit is not None and count >= limit:
                return None
            if total <= sd_sum + 1e-9:
                return count
        return None


def moves_to_sd(snap, hot, sd, limit=None):
    """LB(``sd``): the least migrations the relaxation needs to reach ``sd`` (docstring); None past ``limit``."""
    relax = _Relaxation(snap, hot)
    return relax.least_moves(relax.n * sd * sd, limit)


def relief_floors(snap, hot, ceiling, target, up_to):
    """M -> the least M / LB(sd reached) of any plan of M moves relieving every host at/above ``ceiling``.

    M runs from the least moves that take every host at or above ``ceiling`` to ``target``
    to ``up_to`` ({} if no plan can relieve them all). Each such host keeps at least its
    ``moves_to_limit`` count of moves (its largest shares), the rest go greedily, as in
    ``moves_to_sd``: no plan that relieves every hot host with M moves reaches a lower
    spread than this relaxation's, and LB(sd) never grows as sd does, so none has a lower
    ratio. Levels 1-4 relieve every hot host with about the least moves: where this floor
    is above a target ratio at every M they may use, the target is out of their reach.
    """
    relax = _Relaxation(snap, hot)
    forced, i = {}, 0
    for _, value, shares in relax.rows:
        if value > relax.mean:
            count = _relief_count(value, shares, ceiling, target)
            if count is None:
                return {}
            if count:
                forced[i] = count
            i += 1
        elif value >= ceiling:  # a hot host at or below the mean: an aggregate hotter than its ceiling
            return {}
    relieving = list(itertools.takewhile(lambda pair: pair[0] <= up_to, relax.sums(forced)))
    free = []  # the free curve, as far as the least of those sums
    for count, total in relax.sums():
        free.append(-total)
        if relieving and total <= relieving[-1][1] + 1e-9:
            break
    floors = {}
    for moves, total in relieving:
        j = bisect.bisect_left(free, -total - 1e-9)
        floors[moves] = moves / j if j < len(free) and j else None
    return floors


def _pareto(points):
    """The (GB, share) sums no other of ``points`` beats on both: fewer or as many GB and more share."""
    kept, most = [], -1.0
    for gb, share in sorted(points, key=lambda p: (p[0], -p[1])):
        if share > most:
            kept.append((gb, share))
            most = share
    return kept


def _least_gb_by_count(items, need):
    """Per count k of a host's movable VMs ((GB, share) each), the least GB of k of them whose shares cover ``need``.

    ``math.inf`` where no k of them do. Exact: for each count, the sums of the sets no other
    set of as many VMs beats on both GB and share are kept as VMs are added (shares capped at
    ``need``, past which more is worth nothing).
    """
    fronts = [[(0, 0.0)]] + [[] for _ in items]
    for gb, share in items:
        for k in range(len(items), 0, -1):
            fronts[k] = _pareto(fronts[k] + [(g + gb, min(need, s + share)) for g, s in fronts[k - 1]])
    return [min((g for g, s in front if s >= need - 1e-9), default=math.inf) for front in fronts]


def _min_plus(least, per_count, limit):
    """The least sum of ``least[i] + per_count[j]`` per count i + j, up to ``limit``."""
    out = [math.inf] * min(len(least) + len(per_count) - 1, limit + 1)
    for i, before in enumerate(least):
        if before == math.inf:
            continue
        for j, gb in enumerate(per_count[:len(out) - i]):
            if before + gb < out[i + j]:
                out[i + j] = before + gb
    return out


def gb_for_moves(snap, hot, ceiling, target, moves) -> float:
    """GB(``moves``): the least GB of RAM a plan of that many migrations relieving every hot host copies (docstring).

    Hot: at or above ``ceiling`` on ``hot`` (by demand), relieved to ``target``; RAM is the
    flavor's, in whole GB rounded down. ``math.inf`` if no plan of that many moves can.
    """
    index = snap.index()
    k = ("cpu", "ram", "net").index(hot)
    least, smallest = [0.0], math.inf  # least GB per count of moves off the hot hosts; least GB of one VM
    for h in snap.hypervisors:
        vms = index.vms_on(h.name)
        movable = [vm for vm in vms if not vm.no_migr]
        smallest = min([smallest] + [vm.flavor.ram_mb // 1024 for vm in movable])
        value = scoring.demand_load(h, vms).values()[k]
        if value is None or value < ceiling:
            continue
        items = [(vm.flavor.ram_mb // 1024, scoring.vm_share(vm, h, len(vms)).values()[k] or 0.0) for vm in movable]
        least = _min_plus(least, _least_gb_by_count(items, value - target), moves)
    return float(min((gb + (moves - count) * smallest if moves > count else gb
                      for count, gb in enumerate(least)), default=math.inf))


# The weights of CPU's spread against RAM's that ``moves_to_sds`` tries (0 and 1: one resource alone).
JOINT_WEIGHTS = tuple(i / 10 for i in range(11))
_ROUNDS = 4  # alternations of levels and moves per weight


class _Deviations:
    """``moves_to_sds``'s data on one region: per host and resource, its deviation from the mean and largest shares."""

    def __init__(self, snap, resources):
        self.hosts = {}  # name -> {resource: (deviation, sums of its k largest movable shares for k = 0, 1, ...)}
        self.count = {}
        for resource in resources:
            rows = _hot_values(snap, resource)
            self.count[resource] = len(rows)
            mean = sum(value for _, value, _ in rows) / len(rows) if rows else 0.0
            for h, value, shares in rows:
                sums = list(itertools.accumulate(shares, initial=0.0))
                self.hosts.setdefault(h.name, {})[resource] = (value - mean, sums)

    def least_moves(self, weights, levels, budget):
        """(least M whose bound is within ``budget``, VMs off each host, receiving hosts) at ``levels``; M None if none.

        The bound of the module docstring for ``weights`` and ``levels`` (resource -> value).
        """
        gains, receives, total = [], [], 0.0
        for name, per in self.hosts.items():
            per = [(weights[r], levels[r], deviation, sums) for r, (deviation, sums) in per.items() if weights.get(r)]
            receive = sum(weight * (level - deviation) ** 2 for weight, level, deviation, _ in per if level > deviation)
            if receive > 0:
                receives.append((receive, name))
                total += receive
            before = None
            for count in range(max((len(sums) for *_, sums in per), default=0)):
                left = sum(weight * max(0.0, deviation - level - sums[min(count, len(sums) - 1)]) ** 2
                           for weight, level, deviation, sums in per)
                if before is None:
                    total += left
                else:
                    gains.append((before - left, name))
                before = left
                if left <= 0:
                    break
        total -= sum(weight * self.count[r] * levels[r] ** 2 for r, weight in weights.items() if weight)
        gains.sort(reverse=True)
        receives.sort(reverse=True)
        moves = 0
        while total > budget + 1e-9:
            if moves >= max(len(gains), len(receives)):
                return None, {}, set()
            total -= (gains[moves][0] if moves < len(gains) else 0.0) + (
                receives[moves][0] if moves < len(receives) else 0.0)
            moves += 1
        return moves, collections.Counter(name for _, name in gains[:moves]), {name for _, name in receives[:moves]}

    def best_level(self, resource, moved, receivers):
        """The level maximising the bound on ``resource`` for those moves off each host and receivers.

        Where sum clamp(w, l_i, u_i) = 0 (module docstring), found on its sorted breakpoints.
        """
        events, value = [], 0.0  # value: the sum at the lowest breakpoint
        for name, per in self.hosts.items():
            if resource not in per:
                continue
            deviation, sums = per[resource]
            low = deviation - sums[min(moved.get(name, 0), len(sums) - 1)]
            value += low
            events.append((low, 1))
            if name not in receivers:
                events.append((deviation, -1))
        events.sort(key=lambda e: (e[0], -e[1]))  # a host's own two breakpoints may coincide: enter first
        slope, at = 0, events[0][0] if events else 0.0
        for point, change in events:
            if slope and value + slope * (point - at) >= 0:
                return at - value / slope
            value += slope * (point - at)
            at, slope = point, slope + change
        return at - value / slope if slope else at


def moves_to_sds(snap, sds, weights=JOINT_WEIGHTS):
    """LBjoint: the least migrations that bring each resource's spread to ``sds[resource]`` in one plan (docstring).

    ``sds``: {"cpu": a, "ram": b} (or one of them); None if the bound finds no count that
    does. The largest over ``weights`` of CPU's spread against RAM's.
    """
    resources = tuple(sorted(sds))
    deviations = _Deviations(snap, resources)
    pairs = [{resources[0]: 1.0}] if len(resources) == 1 else [
        {resources[0]: weight, resources[1]: 1.0 - weight} for weight in weights]
    best = 0
    for weighted in pairs:
        budget = sum(weight * deviations.count[r] * sds[r] ** 2 for r, weight in weighted.items())
        levels = {r: -sds[r] for r in resources}
        for _ in range(_ROUNDS):
            moves, moved, receivers = deviations.least_moves(weighted, levels, budget)
            if moves is None:
                return None
            best = max(best, moves)
            found = {r: deviations.best_level(r, moved, receivers) if weighted[r] else levels[r] for r in resources}
            if found == levels:
                break
            levels = found
    return best
