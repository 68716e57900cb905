"""The benchmark's lower bounds on LB migrations (tests/benchmarks/lb_bounds.py): exact cases and no plan below them."""

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
        effective = lb.balance_config(config, [scoring.demand_load(h, index.vms_on(h.name))
                                               for h in snap.hypervisors])
        if max(values) < effective.lb_target_ceiling(shape):  # every hot host was taken to the limit
            assert len(plan.moves) >= lb_bounds.moves_to_limit(
                snap, shape, effective.lb_ceilings[shape], effective.lb_target_ceiling(shape)), level


def test_the_relief_floor_keeps_each_hot_hosts_least_moves_then_goes_greedily():
    # hot 90%: shares 25, 15, 10; mean 55. Relieving it to 75 takes the 25 (1 move, sd 10: LB 1);
    # to 55 takes 25 + 15 (2 moves, sd 0: LB 2). Both plans sit on the bound: floor 1.0.
    snap = _region([_measured("big", "hot", 10.0), _measured("mid", "hot", 6.0), _measured("small", "hot", 4.0)])
    assert lb_bounds.relief_floors(snap, "cpu", 85.0, 75.0, up_to=3) == {1: 1.0, 2: 1.0}
    assert lb_bounds.relief_floors(snap, "cpu", 85.0, 55.0, up_to=3) == {2: 1.0}
    pinned = [_measured("big", "hot", 10.0, no_migr=True), _measured("mid", "hot", 6.0)]
    assert lb_bounds.relief_floors(_region(pinned), "cpu", 85.0, 55.0, up_to=3) == {}


def test_relieving_a_barely_hot_host_costs_moves_a_free_plan_spends_where_the_spread_is():
    # mean 52 over a 100% host (four 25-point VMs), b at 61% (2-point VMs), e at 59% (one
    # 7-point VM), two empty 20% hosts. Relief to 55 over a 60 ceiling takes 2 of a's and 3 of
    # b's: 5 moves, a spread (sum of squares) of 58 above the mean and 50 below. The free
    # relaxation reaches less (73.5) with 4: a's two, e's, one of b's. No relieving plan of 5
    # moves is nearer LB(sd) than 5 / 4.
    hosts = [b.host(name, vcpus=40, cpu_pct=pct) for name, pct in
             (("a", 100.0), ("b", 61.0), ("e", 59.0), ("c", 20.0), ("d", 20.0))]
    vms = ([_measured("a%d" % i, "a", 10.0) for i in range(4)] + [_measured("b%d" % i, "b", 0.8) for i in range(5)]
           + [_measured("e0", "e", 2.8)])
    floors = lb_bounds.relief_floors(b.snapshot(hosts, vms), "cpu", 60.0, 55.0, up_to=5)
    assert floors == {5: pytest.approx(1.25)}


def test_the_gb_bound_covers_each_hot_hosts_excess_with_the_least_ram():
    # a 90% host: the 25-point VM of 16 GB, the 15 and 10-point VMs of 4 GB each
    vms = [b.vm("big", "hot", vcpus=10, ram_mb=16384, metrics=m.VMMetrics(cpu_cores=10.0, ram_mb=16384)),
           b.vm("mid", "hot", vcpus=6, ram_mb=4096, metrics=m.VMMetrics(cpu_cores=6.0, ram_mb=4096)),
           b.vm("small", "hot", vcpus=4, ram_mb=4096, metrics=m.VMMetrics(cpu_cores=4.0, ram_mb=4096))]
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 75.0) == 4.0  # 15 points: the 15
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 70.0) == 8.0  # 20: two small ones beat the big one
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 85.0, 55.0) == 20.0  # 35: the big one and the 10
    assert lb_bounds.gb_to_limit(_region(vms), "cpu", 95.0, 75.0) == 0.0
