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
the moves of every plan reaching both spreads, for every lam, w_cpu and w_ram. It assumes
nothing of the sources (above or below the mean, past it or not), so with lam = 0 or 1 it
is also a proof of the single-resource bound where LB(sd)'s accounting needs its
assumptions.

Any lam and levels give a valid bound; LBjoint is the largest the search finds, which
has two passes. First, at lam = 0, 0.1, ..., 1, alternation from w = -sd: for the moves
and receivers the bound chose (a *choice*: a split of the moves and a set of receivers),
the levels that maximise it (for one choice the bound is concave in w, largest where sum
clamp(w, l_i, u_i) = 0, u_i = d_i for a host that receives nothing, else unbounded), a few
rounds. Alternation may stop short of the largest or cycle between two choices (on the
300-host RAM-hot region of seed 1, lam = 0, a level 3 plan: 36 after 4 rounds, where the
largest is 40). Second, with M the count found so far: is there a lam and levels at which
M moves leave the bound over the budget? If so, the count grows to the least whose bound
is within the budget there, and the question is asked again. For one lam the bound with M
moves is the least over choices of functions concave in the levels, so it is concave in
them: an ascent finds its largest. Each step goes to the levels best for the current choice
(at a fixed point, where those are the current levels, the choice's own largest bound, an
upper bound of the bound's, is reached: that is its largest); where the bound is not larger
there, the largest lies where choices meet, and the step goes to the top of the model, the
least of the bounds of the choices met so far (a cutting-plane method: the model is above
the bound, its top above the bound's largest; each choice the bound takes at the model's
top joins it), found by nested golden-section searches over the two levels. Over lam, the
largest over the levels of the bound, less the budget, is concave: with v = lam w_cpu, lam
G(v / lam) is the perspective of a function G concave in w, so jointly concave in (lam, v)
(as is the RAM term in (1 - lam, w_ram (1 - lam))), and so are the least over choices and
its largest over v. Golden-section search over lam (and lam = 0 and 1) finds its largest; it
stops early once the values found show that a concave function through them stays under 0
(``_concave_ceiling``). On the benchmark's 300-host regions (levels 1-5, CPU-hot seeds 1-2,
RAM-hot seeds 1-3) and the 1,000-host RAM-hot region of seed 2 the count equals the one a
brute-force search (nested golden-section searches over lam and both levels) finds;
tests/unit/planning/test_lb_bounds.py checks it against one from the definition on small
regions.

``relief_floor``: the least ratio M / LBjoint(spreads reached) of any plan of M moves that
takes every hot host to the target limit (the cost of relieving every hot host, rather than
spending the same moves where they narrow the spreads most): where it is above a target
ratio, no such plan meets it. Proof, in LBjoint's accounting. Such a plan moves at least
c_h VMs off each hot host h (c_h: ``moves_to_limit``'s count for h, the fewest whose
largest shares cover its excess), so for every lam its weighted sum of squares lam A + (1 -
lam) B (A = n a^2, B = n b^2, a and b the spreads it reaches) is at least f(lam), the bound
with M moves and k_h >= c_h (the same bound over fewer choices), at any levels. Its LBjoint
is at most N if at every lam the largest over the levels of the free bound with N moves,
q(lam), is within lam A + (1 - lam) B, so if q(lam) <= f(lam) at every lam. That is checked
with finitely many numbers: for one choice C of N moves, q(lam) <= U_C(lam) = lam max_w
G_C^cpu(w) + (1 - lam) max_w G_C^ram(w) (the bound is the least over choices, and C's is
the sum of a CPU and a RAM part), a line in lam; f is concave in lam (as above), so on [lam1,
lam2] it is at least the line through any values it takes at lam1 and lam2, such as the
bound at the levels an ascent found there. A choice under both of those values covers the
interval; [0, 1] is covered by halving intervals (down to 1/64), with the choices the
ascents met at each end and the middle. The least N so covered (bisection; N = M needs no
check: LBjoint of a plan's own spreads is at most its moves) gives the floor M / N: every
relieving plan of M moves has LBjoint <= N, and the benchmark's LBjoint, the largest the
search finds, is at most that. Exact on the test's small case; a property test checks it
against every plan of small regions.
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


def _gains(excesses_shares, gain):
    """Per move, the best next ``gain(excess, taken_before, share)`` over all hosts (greedy, concave)."""
    heap = []
    for i, (excess, shares) in enumerate(excesses_shares):
        if shares and excess > 0:
            heapq.heappush(heap, (-gain(excess, 0.0, shares[0]), i, 0, 0.0))
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

    def sums(self):
        """(moves, least sum of squared deviations) per count of moves, from none to the last gain.

        The sums never rise.
        """
        square_gain = _gains(self.above, lambda e, t, s: (e - t) ** 2 - (e - min(e, t + s)) ** 2)
        mass_gain = _gains(self.above, lambda e, t, s: min(e, t + s) - t)
        count, spread_above, mass = 0, self.spread_above, 0.0
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


# The weights of CPU's spread against RAM's that ``moves_to_sds``' first pass tries (0 and 1: one resource alone).
JOINT_WEIGHTS = tuple(i / 10 for i in range(11))
_ROUNDS = 4  # first pass: alternations of levels and moves per weight
_ASCENT_STEPS = 40  # second pass: the most steps of an ascent over the levels at one weight and count
_MODEL_STEPS = 18  # golden-section steps of a search for the model's top, per level
_BUNDLE = 6  # choices the model keeps (the newest)
_WEIGHT_STEPS = 12  # golden-section steps over the weight (to an interval of 0.003)
_FLOOR_DEPTH = 6  # relief_floor: weight intervals are halved down to 1/64
_GOLDEN = (5 ** 0.5 - 1) / 2
_MARGIN = 1e-9  # how far over its budget the bound must be to count (rounding)


def _golden_max(f, lo, hi, steps, stop=math.inf, give_up=None):
    """(x, f(x)) of the largest ``f`` golden-section search finds on [lo, hi]; first one above ``stop`` if any.

    Exact (to the interval it narrows to) for a concave ``f``. It ends early once
    ``give_up()`` is true (asked after each step).
    """
    c, d = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    fc = f(c)
    if fc > stop:
        return c, fc
    fd = f(d)
    for _ in range(steps):
        if fd > stop or (give_up is not None and give_up()):
            break
        if fc > fd:
            hi, d, fd = d, c, fc
            c = hi - _GOLDEN * (hi - lo)
            fc = f(c)
            if fc > stop:
                return c, fc
        else:
            lo, c, fc = c, d, fd
            d = lo + _GOLDEN * (hi - lo)
            fd = f(d)
    return (c, fc) if fc > fd else (d, fd)


def _concave_ceiling(points):
    """The most a concave function can reach on the span of ``points`` ((x, f(x)), at least 3), else inf.

    Between two neighbouring points it is under the extensions of the chords on either side
    (a concave function's chord slopes fall from left to right).
    """
    points = sorted(points)
    if len(points) < 3:
        return math.inf
    most = max(y for _, y in points)
    for i in range(len(points) - 1):
        (x0, y0), (x1, y1) = points[i], points[i + 1]
        lines = []  # (slope, through x, y)
        if i > 0:
            xl, yl = points[i - 1]
            lines.append(((y0 - yl) / (x0 - xl), x0, y0))
        if i + 2 < len(points):
            xr, yr = points[i + 2]
            lines.append(((yr - y1) / (xr - x1), x1, y1))
        candidates = [x0, x1]
        if len(lines) == 2 and lines[0][0] != lines[1][0]:
            (s0, a0, b0), (s1, a1, b1) = lines
            cross = (b1 - b0 + s0 * a0 - s1 * a1) / (s0 - s1)
            if x0 < cross < x1:
                candidates.append(cross)
        most = max(most, max(min(b + s * (x - a) for s, a, b in lines) for x in candidates))
    return most


def _left(terms, count):
    """A host's source part of the bound once ``count`` VMs left it: sum of weight * (l - level)+^2."""
    return sum(weight * max(0.0, deviation - level - sums[min(count, len(sums) - 1)]) ** 2
               for weight, level, deviation, sums in terms)


class _Deviations:
    """``moves_to_sds``'s data on one region: per host and resource, its deviation from the mean and largest shares."""

    def __init__(self, snap, resources):
        self.resources = tuple(resources)
        self.hosts = {}  # name -> {resource: (deviation, sums of its k largest movable shares for k = 0, 1, ...)}
        self.count = {}
        for resource in resources:
            rows = _hot_values(snap, resource)
            self.count[resource] = len(rows)
            mean = sum(value for _, value, _ in rows) / len(rows) if rows else 0.0
            for h, value, shares in rows:
                sums = list(itertools.accumulate(shares, initial=0.0))
                self.hosts.setdefault(h.name, {})[resource] = (value - mean, sums)

    def weighing(self, lam):
        """The weights of the resources at ``lam``: CPU's ``lam``, RAM's ``1 - lam`` (one resource: 1)."""
        if len(self.resources) == 1:
            return {self.resources[0]: 1.0}
        return {self.resources[0]: lam, self.resources[1]: 1.0 - lam}

    def budget(self, weights, sds):
        """The weighted sum of squares a plan reaching ``sds`` has: sum of weight * n * sd^2."""
        return sum(weight * self.count[r] * sds[r] ** 2 for r, weight in weights.items())

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
                left = _left(per, count)
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
        while total > budget + _MARGIN:
            if moves >= max(len(gains), len(receives)):
                return None, {}, set()
            total -= (gains[moves][0] if moves < len(gains) else 0.0) + (
                receives[moves][0] if moves < len(receives) else 0.0)
            moves += 1
        return moves, collections.Counter(name for _, name in gains[:moves]), {name for _, name in receives[:moves]}

    def selection(self, weights, levels, moves, forced=None):
        """(the bound with ``moves`` migrations, VMs off each host, receiving hosts) at ``levels``.

        The least over every split of the moves and set of receivers (module docstring): the
        largest marginal gains, taken host by host from a heap, and the largest no-receipt
        terms. ``forced`` maps a host to the least VMs that must leave it (counted among the
        moves; ``math.inf`` if they are more). Every move and receiver is placed, where the
        gains run out too (equal, at 0): there the largest share (the most it lowers the
        bound elsewhere) and the lowest host first, so the choice also bounds nearby levels
        well (``ascend``'s model).
        """
        forced = forced or {}
        free = moves - sum(forced.values())
        if free < 0:
            return math.inf, collections.Counter(), set()
        heap, receives, total, moved, terms = [], [], 0.0, collections.Counter(forced), {}

        def push(name, count, left, add=heapq.heappush):  # the next VM off ``name``, if any
            per, most = terms[name]
            if count < most:
                after = _left(per, count + 1)
                share = sum(weight * (sums[min(count + 1, len(sums) - 1)] - sums[min(count, len(sums) - 1)])
                            for weight, _, _, sums in per)
                add(heap, (after - left, -share, name, count + 1, after))

        for name, per in self.hosts.items():
            per = [(weights[r], levels[r], deviation, sums) for r, (deviation, sums) in per.items() if weights.get(r)]
            if not per:
                continue
            receive = sum(weight * (level - deviation) ** 2 for weight, level, deviation, _ in per if level > deviation)
            receives.append((receive, -sum(weight * deviation for weight, _, deviation, _ in per), name))
            total += receive
            count = forced.get(name, 0)
            left = _left(per, count)
            total += left
            terms[name] = (per, max(len(sums) for *_, sums in per) - 1)
            push(name, count, left, list.append)
        heapq.heapify(heap)
        for _ in range(free):
            if not heap:
                break
            loss, _, name, count, left = heapq.heappop(heap)
            total += loss
            moved[name] = count
            push(name, count, left)
        top = heapq.nlargest(moves, receives)
        total -= sum(receive for receive, _, _ in top)
        total -= sum(weight * self.count[r] * levels[r] ** 2 for r, weight in weights.items() if weight)
        return total, moved, {name for _, _, name in top}

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

    def summit(self, weights, bundle, levels):
        """(levels where the least of the bundle's bounds is largest, that largest): the model's top.

        ``bundle``: per choice met, {resource: _Part}. The least of concave functions is
        concave, and so is its largest over RAM's level as a function of CPU's: nested
        golden-section searches (one for a single weighted resource), over the span of the
        parts' breakpoints (outside it a part is flat or rises towards it).
        """
        weighted = [r for r in self.resources if weights.get(r)]
        spans = {r: (min(parts[r].low for parts in bundle) - 1.0, max(parts[r].high for parts in bundle) + 1.0)
                 for r in weighted}
        first, *rest = weighted
        if not rest:
            x, top = _golden_max(lambda x: min(weights[first] * parts[first](x) for parts in bundle),
                                 *spans[first], _MODEL_STEPS)
            return dict(levels, **{first: x}), top
        (second,) = rest
        inner = {}

        def over_second(x):
            fixed = [weights[first] * parts[first](x) for parts in bundle]
            inner[x], top = _golden_max(lambda y: min(f + weights[second] * parts[second](y)
                                                      for f, parts in zip(fixed, bundle)), *spans[second], _MODEL_STEPS)
            return top

        x, top = _golden_max(over_second, *spans[first], _MODEL_STEPS)
        return dict(levels, **{first: x, second: inner[x]}), top

    def ascend(self, weights, levels, moves, forced=None, stop=math.inf, maxima=None):
        """(the largest bound with ``moves`` migrations found, its levels).

        The bound is concave in the levels, the least over choices of bounds concave in them
        (module docstring). From ``levels``, a step goes to the levels best for the choice
        the bound takes there (``best_level``); where the bound is not larger there, to the
        top of the model, the least of the bounds of the choices met (a cutting-plane method:
        the model is above the bound, so its top bounds the largest; each choice found at the
        top joins the model). It ends at a fixed point (a choice whose best levels are where
        it is: nothing is above it), where the model's top is no higher than the best found,
        after ``_ASCENT_STEPS`` steps or once the bound exceeds ``stop``. If ``maxima`` is a
        list, each choice met appends its own largest bound on each resource (at that
        resource's ``best_level``), all resources weighted or not: ``relief_floor``'s upper
        bounds.
        """
        weighted = [r for r in self.resources if weights.get(r)]
        read = self.resources if maxima is not None else weighted
        value, moved, receivers = self.selection(weights, levels, moves, forced)
        bundle, current = [], True  # current: the newest choice is the one the bound takes at ``levels``

        def meet(moved, receivers):
            parts = {r: _Part(self, r, moved, receivers) for r in read}
            bundle.append(parts)
            del bundle[:-_BUNDLE]
            if maxima is not None:
                maxima.append({r: parts[r](self.best_level(r, moved, receivers)) for r in self.resources})

        meet(moved, receivers)
        for _ in range(_ASCENT_STEPS):
            if value > stop:
                break
            if current:
                best = dict(levels, **{r: self.best_level(r, moved, receivers) for r in weighted})
                if all(abs(best[r] - levels[r]) <= 1e-9 * (1.0 + abs(levels[r])) for r in weighted):
                    break
                found = self.selection(weights, best, moves, forced)
                meet(*found[1:])
                if found[0] > value:
                    levels, (value, moved, receivers) = best, found
                    continue
            step, top = self.summit(weights, bundle, levels)
            if top <= value + 1e-9 * max(1.0, abs(value)):
                break
            found = self.selection(weights, step, moves, forced)
            meet(*found[1:])
            current = found[0] > value
            if current:
                levels, (value, moved, receivers) = step, found
        return value, levels


class _Part:
    """One resource's part of the bound for one choice as a function of the level: sum dist(w, [l_i, u_i])^2 - n w^2.

    On sorted breakpoints with running sums: a value costs two bisections.
    """

    def __init__(self, deviations, resource, moved, receivers):
        lows, highs = [], []
        for name, per in deviations.hosts.items():
            if resource in per:
                deviation, sums = per[resource]
                lows.append(deviation - sums[min(moved.get(name, 0), len(sums) - 1)])
                if name not in receivers:
                    highs.append(deviation)
        self.count = deviations.count[resource]
        self.lows, self.highs = sorted(lows), sorted(highs)
        self.low = self.lows[0] if lows else 0.0
        self.high = max(self.highs[-1] if highs else self.low, self.lows[-1] if lows else 0.0)
        self.low_sums = list(itertools.accumulate(self.lows, initial=0.0))
        self.low_squares = list(itertools.accumulate((x * x for x in self.lows), initial=0.0))
        self.high_sums = list(itertools.accumulate(self.highs, initial=0.0))
        self.high_squares = list(itertools.accumulate((x * x for x in self.highs), initial=0.0))

    def __call__(self, level):
        i = bisect.bisect_right(self.lows, level)  # lows[i:] are above the level
        j = bisect.bisect_left(self.highs, level)  # highs[:j] are below it
        above = (self.low_squares[-1] - self.low_squares[i] - 2 * level * (self.low_sums[-1] - self.low_sums[i])
                 + (len(self.lows) - i) * level * level)
        below = self.high_squares[j] - 2 * level * self.high_sums[j] + j * level * level
        return above + below - self.count * level * level


def moves_to_sds(snap, sds):
    """LBjoint: the least migrations that bring each resource's spread to ``sds[resource]`` in one plan (docstring).

    ``sds``: {"cpu": a, "ram": b} (or one of them); None if the bound finds no count that
    does. The largest over the weight of CPU's spread against RAM's and the levels, searched
    in two passes (module docstring).
    """
    deviations = _Deviations(snap, tuple(sorted(sds)))
    lams = JOINT_WEIGHTS if len(deviations.resources) == 2 else (1.0,)
    best, start = 0, {}
    for lam in lams:  # first pass: alternation from the levels -sd
        weights = deviations.weighing(lam)
        budget = deviations.budget(weights, sds)
        levels = {r: -sds[r] for r in deviations.resources}
        for _ in range(_ROUNDS):
            moves, moved, receivers = deviations.least_moves(weights, levels, budget)
            if moves is None:
                return None
            best = max(best, moves)
            found = {r: deviations.best_level(r, moved, receivers) if weights[r] else levels[r]
                     for r in deviations.resources}
            if found == levels:
                break
            levels = found
        start[lam] = levels
    while True:  # second pass: is there a weight and levels where ``best`` moves leave the bound over budget?
        point = _exceeding(deviations, sds, best, start)
        if point is None:
            return best
        weights, levels = point
        moves, _, _ = deviations.least_moves(weights, levels, deviations.budget(weights, sds))
        if moves is None:
            return None
        if moves <= best:  # over the budget by less than least_moves' rounding margin
            return best
        best = moves


def _exceeding(deviations, sds, moves, start):
    """(weights, levels) where the bound with ``moves`` migrations is over the budget of ``sds``, or None.

    At each weight tried, the levels by ``ascend`` from those of the nearest weight tried
    before (``start``: weight -> levels, updated); the weights 0 and 1, then golden-section
    search over the weight: the largest bound less the budget is concave in the weight
    (module docstring), so the search finds its largest, and gives up once the weights tried
    show that it stays under the budget (``_concave_ceiling``).
    """
    tried = {}

    def excess(lam):
        weights = deviations.weighing(lam)
        budget = deviations.budget(weights, sds)
        nearest = min(start, key=lambda known: abs(known - lam))
        value, levels = deviations.ascend(weights, start[nearest], moves, stop=budget)
        start[lam] = levels
        tried[lam] = value - budget
        return value - budget

    if len(deviations.resources) == 1:
        return (deviations.weighing(1.0), start[1.0]) if excess(1.0) > _MARGIN else None
    for lam in (0.0, 1.0):
        if excess(lam) > _MARGIN:
            return deviations.weighing(lam), start[lam]
    lam, value = _golden_max(excess, 0.0, 1.0, _WEIGHT_STEPS, stop=_MARGIN,
                             give_up=lambda: _concave_ceiling(tried.items()) <= _MARGIN)
    return (deviations.weighing(lam), start[lam]) if value > _MARGIN else None


def relief_floor(snap, hot, ceiling, target, moves):
    """The least ``moves`` / LBjoint(spreads reached) of a plan of that many moves relieving every hot host (docstring).

    Hot: at or above ``ceiling`` on ``hot`` (by demand), relieved to ``target``. None if no
    plan of ``moves`` migrations can relieve them all, or if the bound gives no floor above 0.
    """
    forced, movable = {}, 0
    for h, value, shares in _hot_values(snap, hot):
        movable += len(shares)
        count = _relief_count(value, shares, ceiling, target)
        if count is None:
            return None
        if count:
            forced[h.name] = count
    if sum(forced.values()) > moves or moves > movable:
        return None
    deviations = _Deviations(snap, ("cpu", "ram"))
    lows, uppers = {}, {}

    def low(lam):  # the relieving plans' bound at ``lam``: at its best levels found, a lower value of its largest
        if lam not in lows:
            weights = deviations.weighing(lam)
            lows[lam] = deviations.ascend(weights, dict.fromkeys(deviations.resources, 0.0), moves, forced)[0]
        return lows[lam]

    def upper(lam, count):  # per selection of ``count`` free moves met at ``lam``: its largest bound per resource
        if (lam, count) not in uppers:
            weights = deviations.weighing(lam)
            uppers[(lam, count)] = []
            deviations.ascend(weights, dict.fromkeys(deviations.resources, 0.0), count, maxima=uppers[(lam, count)])
        return uppers[(lam, count)]

    def covered(count):  # does every weight have a selection of ``count`` moves whose largest bound is under low?
        intervals = [(0.0, 1.0, 0)]
        while intervals:
            a, b, depth = intervals.pop()
            met = upper(a, count) + upper(b, count) + upper((a + b) / 2, count)
            if not any(all(sum(weight * most[r] for r, weight in deviations.weighing(lam).items()) <= low(lam)
                           for lam in (a, b)) for most in met):
                if depth == _FLOOR_DEPTH:
                    return False
                intervals += [(a, (a + b) / 2, depth + 1), ((a + b) / 2, b, depth + 1)]
        return True

    lo, hi = 0, moves  # hi is covered: LBjoint of a plan's own spreads is at most its moves
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if covered(mid):
            hi = mid
        else:
            lo = mid
    return moves / hi if hi else None
