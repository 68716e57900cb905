"""The LB dial: what each lb_level's thresholds do to a plan, and level 5's limits from the aggregate's mean."""

import dataclasses

import pytest

from keyvrm.model import settings
from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import lb
from keyvrm.scheduling import scoring
from tests.unit.planning import regiongen

APP = AppConfig(enabled=True)


def _at_level(name, level):
    preset = {k: (dict(v) if isinstance(v, dict) else v) for k, v in settings.LB_LEVELS[level].items()}
    return AggregateConfig(name=name, marker="LB", no_op_mode=False, no_op_reason=None, lb_level=level, **preset)


def test_below_the_balance_level_a_plan_uses_the_aggregates_own_thresholds():
    config = _at_level("a", 4)
    assert lb.balance_config(config, [scoring.Load(10.0, 10.0)]) is config


def test_level_5_limits_are_the_mean_plus_the_band_on_measures_spread_wider_than_half_of_it():
    loads = [scoring.Load(10.0, 20.0), scoring.Load(30.0, 22.0), scoring.Load(50.0, 24.0)]  # cpu sd 16, ram sd 1.6
    effective = lb.balance_config(_at_level("a", 5), loads)
    mean_score = sum(scoring.syn_score(load, effective.lb_weights) for load in loads) / 3
    band = settings.LB_BALANCE_BAND_PCT
    assert effective.lb_overload_threshold == pytest.approx(mean_score + band)
    assert effective.lb_target_max_load == pytest.approx(mean_score + band / 2)
    assert effective.lb_ceilings["cpu"] == pytest.approx(30.0 + band)
    assert effective.lb_ceilings["ram"] == settings.LB_LEVELS[5]["lb_ceilings"]["ram"]  # flat: not balanced


def _plans(level, seed, hosts=120):
    snap = regiongen.generate_region(regiongen.cpu_hot_shape(hosts, hosts), seed)
    config = _at_level(snap.aggregates[0].name, level)
    plan = lb.plan_balancing(snap, APP, config, m.BusySet())
    after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
    again = lb.plan_balancing(after, APP, config, m.BusySet(),
                              recent_moves={mv.vm_id: snap.taken_at for mv in plan.moves}, now_s=snap.taken_at)
    return plan, after, again


def _max_cpu(snap):
    return max(scoring.load_of(h).cpu_pct for h in snap.hypervisors)


@pytest.mark.parametrize("seed", [1, 2])
def test_each_level_up_to_4_relieves_more_and_a_second_plan_moves_nothing(seed):
    results = [_plans(level, seed) for level in (1, 2, 3, 4)]
    moves = [len(plan.moves) for plan, _, _ in results]
    hottest = [_max_cpu(after) for _, after, _ in results]
    assert moves == sorted(moves) and moves[0] > 0
    assert hottest == sorted(hottest, reverse=True)
    for level, (_, after, again) in zip((1, 2, 3, 4), results):
        ceiling = settings.LB_LEVELS[level]["lb_ceilings"]["cpu"]
        assert _max_cpu(after) < ceiling, level
        assert again.moves == (), level


def test_level_5_narrows_the_cpu_spread_beyond_level_4():
    spread = {}
    for level in (4, 5):
        _, after, _ = _plans(level, 1)
        spread[level] = _cpu_sd(after)
    assert spread[5] < spread[4]


@pytest.mark.parametrize("seed", [1, 2])
def test_level_5_lifts_hosts_far_below_the_mean_never_raises_one_above_it_and_a_second_plan_moves_nothing(seed):
    snap = regiongen.generate_region(regiongen.cpu_hot_shape(120, 120), seed)
    before = {h.name: scoring.load_of(h).cpu_pct for h in snap.hypervisors}
    mean = sum(before.values()) / len(before)
    plan, after, again = _plans(5, seed)
    targets = {mv.target for mv in plan.moves}
    moved_after = {h.name: scoring.load_of(h).cpu_pct for h in after.hypervisors}
    # the pass reads the mean once the relief has moved, which moves across capacities shift
    floor = min(mean, sum(moved_after.values()) / len(moved_after)) - settings.LB_BALANCE_FLOOR_PCT
    low = [n for n in before if before[n] < floor]
    assert low and [n for n in low if moved_after[n] < floor] == []
    assert all(moved_after[t] > before[t] for t in targets)
    assert all(moved_after[n] <= before[n] + 1e-6 for n in before if before[n] > mean)  # hosts above never rise
    assert again.moves == ()


def test_level_5_evens_out_only_a_resource_spread_wider_than_half_the_band_widest_first():
    config = _at_level("a", 5)
    flat_cpu = [scoring.Load(40.0, 20.0), scoring.Load(42.0, 80.0), scoring.Load(44.0, 50.0)]
    assert lb.balance_measures(config, flat_cpu) == (lb.MEASURES.index("ram"),)
    both = [scoring.Load(10.0, 20.0), scoring.Load(50.0, 80.0), scoring.Load(44.0, 50.0)]
    assert lb.balance_measures(config, both) == (lb.MEASURES.index("ram"), lb.MEASURES.index("cpu"))
    assert lb.balance_measures(config, [scoring.Load(40.0, 50.0), scoring.Load(44.0, 52.0)]) == ()
    assert lb.balance_measures(_at_level("a", 4), flat_cpu) == ()


def _cpu_sd(snap):
    values = [scoring.load_of(h).cpu_pct for h in snap.hypervisors]
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5


def _hosts_hot_by_demand(snap, ceiling):
    index = snap.index()
    return [h.name for h in snap.hypervisors
            if 100.0 * sum(vm.metrics.cpu_cores for vm in index.vms_on(h.name)) / h.inventories[m.VCPU].total
            >= ceiling]


def _measured_again(snap):
    """``snap`` with each host's CPU measured again from its VMs' demand (100% at most: saturated)."""
    index = snap.index()

    def measured(h):
        demand = 100.0 * sum(vm.metrics.cpu_cores for vm in index.vms_on(h.name)) / h.inventories[m.VCPU].total
        return m.replace(h, metrics=m.replace(h.metrics, cpu_pct=min(100.0, demand)))

    return m.replace(snap, hypervisors=tuple(measured(h) for h in snap.hypervisors))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hosts_whose_vms_ask_for_more_than_their_cores_are_relieved_in_one_plan(seed):
    shape = dataclasses.replace(regiongen.cpu_hot_shape(120, 120), cpu_demand_max_pct=120.0)
    snap = regiongen.generate_region(shape, seed)
    config = _at_level(snap.aggregates[0].name, 3)
    ceiling = config.lb_ceilings["cpu"]
    assert _hosts_hot_by_demand(snap, ceiling)
    plan = lb.plan_balancing(snap, APP, config, m.BusySet())
    after = _measured_again(regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves)))
    assert _hosts_hot_by_demand(after, ceiling) == []
