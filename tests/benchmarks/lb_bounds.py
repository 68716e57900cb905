"""Lower bounds on the migrations an LB plan needs, for ``tests/benchmarks/bench_lb.py``.

Both read the hot resource by demand (``scoring.demand_load``) and a VM's part of it as
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
On hosts of one capacity that is a proof; the benchmark's hosts have 48, 64 or 96 cores,
where a point moved is worth 0.5-2 points of its receiver and the mean moves by what the
moves carry across capacities (the benchmark prints how far: ``mean_shift``), so there
it is the bound of this accounting.

``gb_to_limit``: the least GB of RAM a plan that takes every hot host to the target limit
copies, whatever its count of moves (exact for the sources, as ``moves_to_limit``).

``relief_floors``: the least ratio to LB(sd) that a plan relieving every hot host to the
target limit with M moves can have (the cost of relieving every hot host, rather than
spending the same moves where they narrow the spread most).
"""

import bisect
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
