"""The LB dial: what each lb_level's thresholds do to a plan, and level 5's limits from the aggregate's mean."""

import dataclasses
import statistics

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


def _worth(move, means):
    """What ``move`` took off the squared deviations from ``means`` ({resource: mean}) per GB plus a migration."""
    gain = 0.0
    for key, mean in means.items():
        src, tgt = move.load.source, move.load.target
        before = (getattr(src, key + "_before_pct") - mean) ** 2 + (getattr(tgt, key + "_before_pct") - mean) ** 2
        after = (getattr(src, key + "_after_pct") - mean) ** 2 + (getattr(tgt, key + "_after_pct") - mean) ** 2
        gain += before - after
    return gain / (move.ram_mb / 1024.0 + lb.MIGRATION_COST_GB)


@pytest.mark.parametrize("shape,evened", [(regiongen.cpu_hot_shape, ("cpu",)),
                                          (regiongen.ram_hot_shape, ("cpu", "ram"))])
@pytest.mark.parametrize("seed", [1, 2])
def test_level_5_moves_a_vm_off_a_host_that_is_not_overloaded_only_if_it_pays_and_a_second_plan_moves_nothing(
        shape, evened, seed):
    snap = regiongen.generate_region(shape(120, 120), seed)
    config = _at_level(snap.aggregates[0].name, 5)
    index = snap.index()
    loads = {h.name: scoring.demand_load(h, index.vms_on(h.name)) for h in snap.hypervisors}
    assert [lb.MEASURES[k] for k in sorted(lb.balance_measures(config, loads.values()))] == list(evened)
    effective = lb.balance_config(config, loads.values())
    overloaded = {n for n, load in loads.items()
                  if lb.overload_causes(load, scoring.syn_score(load, effective.lb_weights), effective)}
    means = {key: sum(getattr(load, key + "_pct") for load in loads.values()) / len(loads) for key in evened}
    plan = lb.plan_balancing(snap, APP, config, m.BusySet())
    balancing = [mv for mv in plan.moves if mv.source not in overloaded]
    assert balancing and all(_worth(mv, means) >= settings.LB_BALANCE_WORTH - 1e-6 for mv in balancing)
    after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
    again = lb.plan_balancing(after, APP, config, m.BusySet(),
                              recent_moves={mv.vm_id: snap.taken_at for mv in plan.moves}, now_s=snap.taken_at)
    assert again.moves == ()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_level_5_reaches_the_ram_and_cpu_spreads_of_a_ram_hot_region_within_15_percent_of_the_least_migrations(seed):
    snap = regiongen.generate_region(regiongen.ram_hot_shape(120, 120), seed)
    plan = lb.plan_balancing(snap, APP, _at_level(snap.aggregates[0].name, 5), m.BusySet())
    after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
    index = after.index()
    spreads = {key: statistics.pstdev(getattr(scoring.demand_load(h, index.vms_on(h.name)), key + "_pct")
                                      for h in after.hypervisors) for key in ("cpu", "ram")}
    least = lb_bounds.moves_to_sds(snap, spreads)  # evening RAM out, then CPU, took 1.24-1.36x
    assert spreads["ram"] < 9 and spreads["cpu"] < 11 and len(plan.moves) <= 1.15 * least


def _joint_region(vms):
    """Hosts of 40 cores and 128 GB at (CPU, RAM) %: x (100, 50), overloaded, a (60, 60), b (60, 20), c, d."""
    loads = {"x": (100.0, 50.0), "a": (60.0, 60.0), "b": (60.0, 20.0), "c": (20.0, 20.0), "d": (20.0, 60.0)}  # %
    hosts = [b.host(name, vcpus=40, ram_mb=131072, cpu_pct=cpu, ram_pct=ram) for name, (cpu, ram) in loads.items()]
    return b.snapshot(hosts, vms)


def _vm_carrying(vm_id, host, cpu_points, ram_points):
    """A 16 GB VM that carries ``cpu_points`` of a 40-core host's CPU and ``ram_points`` of its 128 GB."""
    return b.vm(vm_id, host, vcpus=4, ram_mb=16384,
                metrics=m.VMMetrics(cpu_cores=cpu_points * 0.4, ram_mb=int(ram_points * 1310.72)))


def _joint_plan(worth, monkeypatch, **kwargs):
    monkeypatch.setattr(settings, "LB_BALANCE_WORTH", worth)
    # both: 10 points of CPU and 10 of RAM; cpu: 12.5 of CPU (more than both's) and 1 of RAM
    snap = _joint_region([_vm_carrying("both", "a", 10.0, 10.0), _vm_carrying("cpu", "a", 12.5, 1.0)])
    return lb.plan_balancing(snap, APP, _at_level(snap.aggregates[0].name, 5), m.BusySet(), **kwargs)


def test_level_5_evens_cpu_and_ram_out_together_moving_the_vm_that_narrows_both(monkeypatch):
    # means: CPU 52 (sd 29.9), RAM 42 (sd 18.3): both evened. a is 8 above on CPU and 18 on RAM,
    # c 32 and 22 below. Moving both to c takes 600 points^2 off each resource: 1,200 per
    # 16 + 32 GB = 25; cpu would take 687.5 off CPU, more than both's 600, but 78 off RAM.
    # x (overloaded) has no VM to give; d (RAM above its target ceiling) takes none.
    plan = _joint_plan(24.9, monkeypatch)
    assert [(mv.vm_id, mv.source, mv.target) for mv in plan.moves] == [("both", "a", "c")]


def test_level_5_makes_no_move_worth_less_than_its_price_of_balance(monkeypatch):
    assert _joint_plan(25.1, monkeypatch).moves == ()  # both's move is worth 25: just under the price


def test_level_5_moves_nothing_off_a_host_whose_metrics_predate_a_move(monkeypatch):
    assert _joint_plan(24.9, monkeypatch, moved_hosts={"a": b.NOW_S - 60.0}).moves == ()


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
