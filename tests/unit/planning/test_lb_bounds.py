"""The benchmark's lower bounds on LB migrations (tests/benchmarks/lb_bounds.py): exact cases and no plan below them."""

import itertools
import math
import statistics

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
import pytest

from keyvrm.model import settings
from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import lb
from keyvrm.scheduling import scoring
from tests.benchmarks import lb_bounds
from tests.unit.planning import builders as b
from tests.unit.planning import regiongen


def _measured(vm_id, host, cores, **kwargs):
    return b.vm(vm_id, host, vcpus=max(1, int(cores)), ram_mb=4096,
                metrics=m.VMMetrics(cpu_cores=cores, ram_mb=4096), **kwargs)


def _region(hot_vms, cold_cpu_pct=20.0):
    hosts = [b.host("hot", vcpus=40, cpu_pct=90.0, ram_pct=40.0),
             b.host("cold", vcpus=40, cpu_pct=cold_cpu_pct, ram_pct=40.0)]
    return b.snapshot(hosts, hot_vms)


def test_the_limit_bound_takes_the_largest_movable_shares_a_host_needs():
    vms = [_measured("big", "hot", 10.0), _measured("mid", "hot", 6.0), _measured("small", "hot", 4.0)]
    snap = _region(vms)  # shares 25, 15 and 10 points of a 90% host
    assert lb_bounds.moves_to_limit(snap, "cpu", 85.0, 75.0) == 1  # 15 points: the 25 covers them
    assert lb_bounds.moves_to_limit(snap, "cpu", 85.0, 55.0) == 2  # 35 points: 25 + 15
    assert lb_bounds.moves_to_limit(snap, "cpu", 95.0, 55.0) == 0  # under the ceiling: nothing to relieve
    pinned = [_measured("big", "hot", 10.0, no_migr=True)] + vms[1:]
    assert lb_bounds.moves_to_limit(_region(pinned), "cpu", 85.0, 75.0) == 1  # 15 points: the 15 just covers them
    assert lb_bounds.moves_to_limit(_region(pinned), "cpu", 85.0, 55.0) == float("inf")


def test_the_spread_bound_counts_a_move_as_one_share_off_the_top_poured_on_the_bottom():
    # mean 55: the hot host is 35 above, the cold one 35 below; one 25-point move leaves
    # 10 above and, poured on the cold host, 10 below: sd 10
    snap = _region([_measured("big", "hot", 10.0), _measured("mid", "hot", 6.0)])
    assert lb_bounds.moves_to_sd(snap, "cpu", 35.0) == 0
    assert lb_bounds.moves_to_sd(snap, "cpu", 10.0) == 1
    assert lb_bounds.moves_to_sd(snap, "cpu", 9.99) == 2
    assert lb_bounds.moves_to_sd(snap, "cpu", 0.0) == 2  # 25 + 15 >= 35: a fraction of the second closes it
    assert lb_bounds.moves_to_sd(_region([_measured("big", "hot", 10.0)]), "cpu", 0.0) is None


def _at_level(name, level):
    preset = {k: (dict(v) if isinstance(v, dict) else v) for k, v in settings.LB_LEVELS[level].items()}
    return AggregateConfig(name=name, marker="LB", no_op_mode=False, no_op_reason=None, lb_level=level, **preset)


@pytest.mark.parametrize("shape,seed", [("cpu", 1), ("cpu", 2), ("ram", 1)])
def test_no_plan_of_any_level_needs_fewer_migrations_than_the_bounds(shape, seed):
    make = regiongen.cpu_hot_shape if shape == "cpu" else regiongen.ram_hot_shape
    snap = regiongen.generate_region(make(120, 120), seed)
    index = snap.index()
    for level in sorted(settings.LB_LEVELS):
        config = _at_level(snap.aggregates[0].name, level)
        plan = lb.plan_balancing(snap, AppConfig(enabled=True), config, m.BusySet())
        after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
        after_index = after.index()
        k = ("cpu", "ram").index(shape)
        values = [scoring.demand_load(h, after_index.vms_on(h.name)).values()[k] for h in after.hypervisors]
        mean = sum(values) / len(values)
        sd = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        assert len(plan.moves) >= lb_bounds.moves_to_sd(snap, shape, sd), level
        sds = {key: statistics.pstdev(scoring.demand_load(h, after_index.vms_on(h.name)).values()[i]
                                      for h in after.hypervisors) for i, key in enumerate(("cpu", "ram"))}
        assert len(plan.moves) >= lb_bounds.moves_to_sds(snap, sds), level
        effective = lb.balance_config(config, [scoring.demand_load(h, index.vms_on(h.name))
                                               for h in snap.hypervisors])
        if max(values) < effective.lb_target_ceiling(shape):  # every hot host was taken to the limit
            ceiling, target = effective.lb_ceilings[shape], effective.lb_target_ceiling(shape)
            assert len(plan.moves) >= lb_bounds.moves_to_limit(snap, shape, ceiling, target), level
            copied = sum(index.vms[mv.vm_id].flavor.ram_mb // 1024 for mv in plan.moves)
            assert copied >= lb_bounds.gb_for_moves(snap, shape, ceiling, target, len(plan.moves)), level


def test_the_relief_floor_is_the_ratio_of_the_best_plan_that_relieves_every_hot_host():
    # CPU means 40: "h" 22 points over (three 4-point VMs), just over the 60 ceiling, "g" 18
    # over with one 20-point VM, "c1" and "c2" 20 under; RAM even, the VMs carry none. Relief
    # to 55 takes two of h's VMs: at best one on each of c1 and c2, a sum of squares of 14^2
    # + 18^2 + 16^2 + 16^2 = 1032 (also the bound with h's two forced moves). One free move
    # (g's VM onto c1) reaches 888: LBjoint of every relieving plan of 2 moves is 1, floor 2.
    vms = [_vm("h%d" % i, "h", 4, 0) for i in range(3)] + [_vm("g0", "g", 20, 0)]
    snap = b.snapshot(_hosts((("h", 62, 40), ("g", 58, 40), ("c1", 20, 40), ("c2", 20, 40))), vms)
    assert lb_bounds.moves_to_sds(snap, {"cpu": math.sqrt(1032 / 4), "ram": 0.0}) == 1
    assert lb_bounds.relief_floor(snap, "cpu", 60.0, 55.0, 2) == 2.0
    assert lb_bounds.relief_floor(snap, "cpu", 60.0, 55.0, 1) is None  # the relief takes 2 moves
    pinned = [_vm("h%d" % i, "h", 4, 0, no_migr=i > 0) for i in range(3)]
    assert lb_bounds.relief_floor(b.snapshot(_hosts((("h", 62, 40), ("c1", 20, 40))), pinned),
                                  "cpu", 60.0, 55.0, 3) is None  # one movable VM cannot relieve it


def test_the_gb_bound_covers_each_hot_hosts_excess_with_the_least_ram():
    # a 90% host: the 25-point VM of 16 GB, the 15 and 10-point VMs of 4 GB each
    vms = [b.vm("big", "hot", vcpus=10, ram_mb=16384, metrics=m.VMMetrics(cpu_cores=10.0, ram_mb=16384)),
           b.vm("mid", "hot", vcpus=6, ram_mb=4096, metrics=m.VMMetrics(cpu_cores=6.0, ram_mb=4096)),
           b.vm("small", "hot", vcpus=4, ram_mb=4096, metrics=m.VMMetrics(cpu_cores=4.0, ram_mb=4096))]
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 75.0) == 4.0  # 15 points: the 15
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 70.0) == 8.0  # 20: two small ones beat the big one
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 55.0) == 20.0  # 35: the big one and the 10
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 95.0, 75.0) == 0.0


def _vm(vm_id, host, cpu_points, ram_points, gb=None, **kwargs):
    """A VM carrying that many points of a 40-core, 100-GB host's CPU and RAM (flavor RAM ``gb``)."""
    return b.vm(vm_id, host, vcpus=1, ram_mb=1024 * (gb or max(1, round(ram_points))),
                metrics=m.VMMetrics(cpu_cores=cpu_points * 0.4, ram_mb=ram_points * 1024.0), **kwargs)


def _hosts(loads):
    return [b.host(name, vcpus=40, ram_mb=102400, cpu_pct=cpu, ram_pct=ram) for name, cpu, ram in loads]


def test_the_gb_bound_for_a_count_of_moves_splits_it_between_hot_hosts_by_least_ram():
    # "hot" needs 20 points off: the 25-point 16 GB VM (1 move) or the 15 + 10-point 4 GB ones
    # (2 moves, 8 GB); "hot2" too: its 20-point 8 GB VM, or its two 12-point 2 GB ones (4 GB)
    vms = [_vm("big", "hot", 25, 2, gb=16), _vm("mid", "hot", 15, 2, gb=4), _vm("small", "hot", 10, 2, gb=4),
           _vm("x", "hot2", 20, 2, gb=8), _vm("y", "hot2", 12, 2, gb=2), _vm("z", "hot2", 12, 2, gb=2)]
    snap = b.snapshot(_hosts((("hot", 90, 40), ("hot2", 90, 40), ("cold", 20, 40))), vms)
    least = {moves: lb_bounds.gb_for_moves(snap, "cpu", 85.0, 70.0, moves) for moves in range(1, 7)}
    assert least == {1: math.inf, 2: 24.0, 3: 16.0, 4: 12.0, 5: 14.0, 6: 16.0}  # 5, 6: one, two 2 GB VMs more
    assert lb_bounds.gb_to_limit(snap, "cpu", 85.0, 70.0) == 12.0  # whatever the count: the 4-move split
    assert lb_bounds.gb_for_moves(snap, "cpu", 95.0, 70.0, 2) == 4.0  # nothing hot: the two smallest VMs


def _two_hot_one_way_each():
    # means 40/40: "a" 30 points over on CPU (its 30-point VM carries 2 of RAM), "b" 30 over on
    # RAM (its 30-point VM carries 2 of CPU); "c" and "d" 15 under on both. The rest pinned.
    vms = [_vm("a1", "a", 30, 2), _vm("a0", "a", 40, 38, no_migr=True),
           _vm("b1", "b", 2, 30), _vm("b0", "b", 38, 40, no_migr=True)]
    return b.snapshot(_hosts((("a", 70, 40), ("b", 40, 70), ("c", 25, 25), ("d", 25, 25))), vms)


def test_the_joint_bound_needs_a_move_per_resource_where_each_alone_needs_one():
    # a1 to c leaves CPU's deviations 0, 0, +15, -15 (sum of squares 450, sd 10.6) with one move;
    # so does b1 to d for RAM. Both at once take both moves (a1 -> c, b1 -> d: 398 each).
    snap = _two_hot_one_way_each()
    sd = math.sqrt(450.0 / 4)
    assert lb_bounds.moves_to_sd(snap, "cpu", sd) == lb_bounds.moves_to_sd(snap, "ram", sd) == 1
    assert lb_bounds.moves_to_sds(snap, {"cpu": sd}) == lb_bounds.moves_to_sds(snap, {"ram": sd}) == 1
    assert lb_bounds.moves_to_sds(snap, {"cpu": sd, "ram": sd}) == 2


def test_the_joint_bound_counts_one_receiving_host_per_move():
    # "a" 30 points over the CPU mean with two 15-point VMs, three hosts 10 under. Poured as a
    # fluid over the three, one VM leaves a sum of squares of 15^2 + 3 x 5^2 = 300 (LB(sd)'s
    # accounting: 1 move); landing on one host it leaves 15^2 + 5^2 + 2 x 10^2 = 450 at best.
    # Two moves (a VM onto b, one onto c) reach 150.
    vms = [_vm("a1", "a", 15, 2), _vm("a2", "a", 15, 2), _vm("a0", "a", 40, 36, no_migr=True)]
    snap = b.snapshot(_hosts((("a", 70, 40), ("b", 30, 40), ("c", 30, 40), ("d", 30, 40))), vms)
    sd = math.sqrt(300.0 / 4)
    assert lb_bounds.moves_to_sd(snap, "cpu", sd) == 1
    assert lb_bounds.moves_to_sds(snap, {"cpu": sd}) == 2


_points = st.integers(1, 12)
small_regions = st.lists(
    st.tuples(st.integers(10, 90), st.integers(10, 90),
              st.lists(st.tuples(_points, _points, st.sampled_from([2, 4, 8, 16])), max_size=2)),
    min_size=3, max_size=4)


def _small_region(rows):
    """(snapshot, [(host, cpu, ram)], VMs) of ``small_regions`` rows: hosts of one capacity, at most 6 VMs."""
    hosts, vms = [], []
    for i, (cpu, ram, carried) in enumerate(rows):
        name = "h%d" % i
        carried = carried[:max(0, len(rows) * 2 - 2 - len(vms))]  # at most 6 VMs: 4^6 plans
        cpu, ram = max(cpu, sum(c for c, _, _ in carried)), max(ram, sum(r for _, r, _ in carried))
        hosts.append((name, cpu, ram))
        vms.extend(_vm("%s-%d" % (name, j), name, c, r, gb=gb) for j, (c, r, gb) in enumerate(carried))
    return b.snapshot(_hosts(hosts), vms), hosts, vms


def _least_pairs(reached):
    """The (sd_cpu, sd_ram) pairs of ``reached`` no other beats on both."""
    return [(cpu, ram) for cpu, ram in reached
            if not any(other != (cpu, ram) and other[0] <= cpu and other[1] <= ram for other in reached)]


@hsettings(max_examples=40, deadline=None)
@given(small_regions, st.sampled_from([50.0, 60.0, 70.0]))
def test_no_plan_of_a_small_region_beats_the_joint_gb_or_relief_floor_bounds(rows, ceiling):
    """Every plan of a small region (each VM stays or goes to any other host), hosts of one capacity."""
    snap, hosts, vms = _small_region(rows)
    load = {name: [cpu, ram] for name, cpu, ram in hosts}
    names = [name for name, _, _ in hosts]
    target = ceiling - 10.0
    # per count of moves: the spreads its plans reach, those of plans relieving every hot host
    # and the least GB of one of them
    spreads, relieving, least = {}, {}, {}
    for placement in itertools.product(names, repeat=len(vms)):
        after = {name: list(values) for name, values in load.items()}
        moved = [(vm, host) for vm, host in zip(vms, placement) if host != vm.host]
        for vm, host in moved:
            for k, points in enumerate((vm.metrics.cpu_cores / 0.4, vm.metrics.ram_mb / 1024.0)):
                after[vm.host][k] -= points
                after[host][k] += points
        sds = {key: statistics.pstdev(values[k] for values in after.values()) for k, key in enumerate(("cpu", "ram"))}
        spreads.setdefault(len(moved), []).append((sds["cpu"], sds["ram"]))
        if all(after[name][0] <= target + 1e-9 for name, cpu, _ in hosts if cpu >= ceiling):
            relieving.setdefault(len(moved), []).append((sds["cpu"], sds["ram"]))
            gb = sum(vm.flavor.ram_mb // 1024 for vm, _ in moved)
            least[len(moved)] = min(least.get(len(moved), math.inf), gb)
    joints = {}  # (sd_cpu, sd_ram) -> LBjoint
    for moves, reached in spreads.items():
        for cpu, ram in _least_pairs(reached):
            joints[(cpu, ram)] = lb_bounds.moves_to_sds(snap, {"cpu": cpu, "ram": ram})
            assert moves >= joints[(cpu, ram)]
    for moves, gb in least.items():
        assert gb >= lb_bounds.gb_for_moves(snap, "cpu", ceiling, target, moves)
    for moves, reached in relieving.items():
        floor = lb_bounds.relief_floor(snap, "cpu", ceiling, target, moves)
        for cpu, ram in _least_pairs(reached):
            if (cpu, ram) not in joints:
                joints[(cpu, ram)] = lb_bounds.moves_to_sds(snap, {"cpu": cpu, "ram": ram})
            joint = joints[(cpu, ram)]
            if joint:
                assert floor is not None and moves / joint >= floor - 1e-9, (moves, joint, floor)


def _golden_max(f, lo, hi, steps):
    """The largest ``f`` golden-section search finds on [lo, hi] and at both ends."""
    ratio = (5 ** 0.5 - 1) / 2
    best = max(f(lo), f(hi))
    c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc > fd:
            hi, d, fd = d, c, fc
            c = hi - ratio * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + ratio * (hi - lo)
            fd = f(d)
    return max(best, fc, fd)


def _joint_excess_by_brute_force(snap, sds, moves, steps=16):
    """The largest over the weight and both levels of LBjoint's bound with ``moves`` migrations, less its budget.

    From the bound's definition (lb_bounds' docstring), each part by brute force: the least
    over every split of the moves between the hosts (a host's k largest shares off it, per
    resource), every receiver set of at most ``moves`` hosts (the largest no-receipt terms),
    and nested golden-section searches over the weight, CPU's level and RAM's (each search is
    exact for the concave function it searches).
    """
    deviations = lb_bounds._Deviations(snap, ("cpu", "ram"))
    hosts = list(deviations.hosts.values())
    count = deviations.count

    def bound(lam, levels):
        weights = {"cpu": lam, "ram": 1.0 - lam}
        least = {0: 0.0}  # moves used -> least source part, host by host over every split
        for per in hosts:
            costs = [sum(weights[r] * max(0.0, deviation - levels[r] - sums[k]) ** 2
                         for r, (deviation, sums) in per.items()) for k in range(len(per["cpu"][1]))]
            split = {}
            for used, total in least.items():
                for k, cost in enumerate(costs[:moves - used + 1]):
                    split[used + k] = min(split.get(used + k, math.inf), total + cost)
            least = split
        stays = sorted((sum(weights[r] * max(0.0, levels[r] - deviation) ** 2 for r, (deviation, _) in per.items())
                        for per in hosts), reverse=True)
        return (min(least.values()) + sum(stays[moves:])
                - sum(weights[r] * count[r] * levels[r] ** 2 for r in weights))

    def excess(lam):
        budget = lam * count["cpu"] * sds["cpu"] ** 2 + (1.0 - lam) * count["ram"] * sds["ram"] ** 2
        return _golden_max(lambda cpu: _golden_max(lambda ram: bound(lam, {"cpu": cpu, "ram": ram}),
                                                   -100.0, 100.0, steps), -100.0, 100.0, steps) - budget

    return _golden_max(excess, 0.0, 1.0, steps)


@hsettings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(10, 90), st.integers(10, 90),
                          st.lists(st.tuples(_points, _points, st.just(4)), max_size=2)), min_size=3, max_size=4),
       st.floats(0.6, 1.0), st.floats(0.6, 1.0))
def test_the_joint_bound_finds_every_count_a_brute_force_search_over_weights_and_levels_proves(rows, cpu_part,
                                                                                               ram_part):
    # the search's count leaves the bound within budget at every weight and levels
    snap, hosts, _ = _small_region(rows)
    sds = {"cpu": cpu_part * statistics.pstdev(cpu for _, cpu, _ in hosts),
           "ram": ram_part * statistics.pstdev(ram for _, _, ram in hosts)}
    found = lb_bounds.moves_to_sds(snap, sds)
    if found is not None:
        assert _joint_excess_by_brute_force(snap, sds, found) <= 1e-6 * len(hosts) * 100.0 ** 2
