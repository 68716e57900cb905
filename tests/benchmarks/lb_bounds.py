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
"""

import bisect
import heapq
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


def moves_to_limit(snap, hot, ceiling, target) -> int:
    """The least migrations that take every host at/above ``ceiling`` down to ``target`` (docstring)."""
    total = 0
    for _, value, shares in _hot_values(snap, hot):
        if value < ceiling:
            continue
        excess, taken = value - target, 0.0
        for count, share in enumerate(shares, 1):
            taken += share
            if taken >= excess - 1e-9:
                total += count
                break
        else:
            return math.inf  # its movable VMs cannot relieve it
    return total


def _gains(excesses_shares, gain):
    """Per move, the best next ``gain(excess, taken_before, share)`` over all hosts (greedy, concave)."""
    heap = []
    for i, (excess, shares) in enumerate(excesses_shares):
        if shares:
            heapq.heappush(heap, (-gain(excess, 0.0, shares[0]), i, 0, 0.0))
    while heap:
        neg, i, r, taken = heapq.heappop(heap)
        yield -neg
        excess, shares = excesses_shares[i]
        taken = min(excess, taken + shares[r])
        if r + 1 < len(shares) and taken < excess:
            heapq.heappush(heap, (-gain(excess, taken, shares[r + 1]), i, r + 1, taken))


def moves_to_sd(snap, hot, sd, limit=None):
    """LB(``sd``): the least migrations the relaxation needs to reach ``sd`` (docstring); None past ``limit``."""
    rows = _hot_values(snap, hot)
    n = len(rows)
    mean = sum(value for _, value, _ in rows) / n
    above = [(value - mean, shares) for _, value, shares in rows if value > mean]
    below = sorted(value for _, value, _ in rows if value < mean)
    prefix, squares = [0.0], [0.0]
    for value in below:
        prefix.append(prefix[-1] + value)
        squares.append(squares[-1] + value * value)
    spread_above = sum(e * e for e, _ in above)

    def below_spread(load):
        """The least sum of squares below the mean once ``load`` points were poured in."""
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

    square_gain = _gains(above, lambda e, t, s: (e - t) ** 2 - (e - min(e, t + s)) ** 2)
    mass_gain = _gains(above, lambda e, t, s: min(e, t + s) - t)
    goal = n * sd * sd
    moved = 0.0
    for k in range(0, limit if limit is not None else 10 ** 9):
        if spread_above + below_spread(moved) <= goal + 1e-9:
            return k
        try:
            spread_above -= next(square_gain)
            moved += next(mass_gain)
        except StopIteration:
            return None
    return None
