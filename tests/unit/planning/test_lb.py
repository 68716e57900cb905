"""LB plans: period, HugePages mix, overload relief, target limit, ping-pong, reasons."""

import msgspec
import pytest

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import lb
from keyvrm.planning import plan as plan_mod
from keyvrm.planning import reasons
from tests.unit.planning import builders as b

WEIGHTS = {"cpu": 1.0, "ram": 1.0, "net": 0.0, "hugepages": 0.0}


def _measured(vm_id, host, cores, ram_mb, **kwargs):
    return b.vm(vm_id, host, vcpus=int(cores), ram_mb=ram_mb,
                metrics=m.VMMetrics(cpu_cores=cores, ram_mb=ram_mb), **kwargs)


def _hot_region(extra_vm_kwargs=None):
    """hot at 90% cpu/ram with four 8-core/16 GB VMs; two cool hosts at 20%."""
    extra = extra_vm_kwargs or {}
    hosts = [b.host("hot", vcpus=40, ram_mb=81920, cpu_pct=90.0, ram_pct=90.0,
                    used_vcpus=36, used_ram_mb=73728),
             b.host("cool1", vcpus=40, ram_mb=81920, cpu_pct=20.0, ram_pct=20.0),
             b.host("cool2", vcpus=40, ram_mb=81920, cpu_pct=30.0, ram_pct=30.0)]
    vms = [_measured("v%d" % i, "hot", 9, 18432, **extra.get(i, {})) for i in range(4)]
    return hosts, vms


def _plan(hosts, vms, groups=(), app=None, busy=m.BusySet(), **kwargs):
    snap = b.snapshot(hosts, vms, groups)
    return lb.plan_balancing(snap, app or AppConfig(), b.agg_config(lb_weights=WEIGHTS),
                             busy, **kwargs)


def test_lb_timing_waits_for_both_last_event_and_last_recommendation():
    assert lb.lb_timing(None, None, 100.0, 600).due
    assert lb.lb_timing(1000.0, 0.0, 1700.0, 600).due
    early = lb.lb_timing(1000.0, 1500.0, 1700.0, 600)
    assert not early.due and early.wait_s == pytest.approx(400.0)
    assert reasons.lb_too_early(b.AGG, early.wait_s).code == reasons.LB_TOO_EARLY


def test_mixed_hugepages_is_an_error():
    huge = b.vm("h", "hot", fl=b.flavor(**{"hw:mem_page_size": "large"}))
    hosts, vms = _hot_region()
    plan = _plan(hosts, vms + [huge])
    assert plan.moves == () and plan.is_error
    assert [r.code for r in plan.reasons] == [reasons.MIXED_HUGEPAGES]


def test_no_overload_says_so():
    plan = _plan([b.host("a", cpu_pct=50.0, ram_pct=50.0)], [])
    assert [r.code for r in plan.reasons] == [reasons.NO_OVERLOAD]


def test_no_metrics_anywhere():
    plan = _plan([b.host("a"), b.host("b")], [])
    assert [r.code for r in plan.reasons] == [reasons.NO_METRICS]


def test_overloaded_host_is_relieved_and_target_stays_under_limit():
    hosts, vms = _hot_region()
    plan = _plan(hosts, vms)
    assert plan.moves
    for move in plan.moves:
        assert move.action == plan_mod.LIVE_MIGRATE and move.source == "hot"
        assert move.load.target.syn_score_after_pct <= 70.0
        assert move.load.source.syn_score_after_pct < move.load.source.syn_score_before_pct
    assert plan.moves[-1].load.source.syn_score_after_pct <= 80.0
    first = plan.moves[0]
    assert first.target == "cool1"
    assert first.load.source.cpu_before_pct == 90.0
    assert first.load.source.cpu_after_pct == pytest.approx(90.0 - 22.5)
    assert first.load.target.ram_after_pct == pytest.approx(20.0 + 22.5)


def test_no_migr_busy_and_cooled_vms_stay():
    hosts, vms = _hot_region({0: {"no_migr": True}})
    plan = _plan(hosts, vms, busy=m.BusySet(vms=frozenset({"v1"})),
                 recent_moves={"v2": 950.0}, now_s=1000.0, cooldown_s=600.0)
    moved = {mv.vm_id for mv in plan.moves}
    assert moved <= {"v3"}
    codes = {r.code for r in plan.reasons}
    assert {reasons.EXCLUDED_BY_METADATA, reasons.BUSY, reasons.COOLDOWN} <= codes


def test_a_live_migration_that_just_failed_is_not_asked_again_but_another_target_is():
    hosts, vms = _hot_region()
    first = _plan(hosts, vms)
    vm_id, target = first.moves[0].vm_id, first.moves[0].target
    plan = _plan(hosts, vms, recent_failures={(vm_id, target): 950.0}, now_s=1000.0, cooldown_s=600.0)
    assert (vm_id, target) not in {(mv.vm_id, mv.target) for mv in plan.moves}
    assert vm_id in {mv.vm_id for mv in plan.moves}  # the VM goes to the other cool host
    later = _plan(hosts, vms, recent_failures={(vm_id, target): 0.0}, now_s=1000.0, cooldown_s=600.0)
    assert later.moves[0] == first.moves[0]  # the cool-down of a failure expires like a move's


def test_a_vm_refused_by_every_target_names_the_recent_failure_per_host():
    hosts, vms = _hot_region()
    refused = {(vm.id, target): 950.0 for vm in vms for target in ("cool1", "cool2")}
    plan = _plan(hosts, vms, recent_failures=refused, now_s=1000.0, cooldown_s=600.0)
    assert plan.moves == ()
    [no_target] = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert {(host, check) for host, check, _ in no_target.rejected_hosts} == {
        ("cool1", lb.RECENT_FAILURE), ("cool2", lb.RECENT_FAILURE)}


@pytest.mark.parametrize("source", [m.SOURCE_NOVA, m.SOURCE_PLACEMENT])
def test_nothing_is_planned_from_a_snapshot_whose_nova_or_placement_failed(source):
    hosts, vms = _hot_region()
    snap = b.snapshot(hosts, vms, failed_sources=(source,))
    plan = lb.plan_balancing(snap, AppConfig(), b.agg_config(lb_weights=WEIGHTS), m.BusySet())
    assert plan.moves == ()
    assert [r.code for r in plan.reasons] == [reasons.SOURCE_FAILED]
    assert "the %s source failed this cycle" % source in plan.reasons[0].message
    assert reasons.nothing_to_do(plan.reasons)  # on the cycle, and LB runs again next cycle


def test_cooldown_expires():
    hosts, vms = _hot_region()
    plan = _plan(hosts, vms, recent_moves={"v0": 0.0, "v1": 0.0, "v2": 0.0, "v3": 0.0},
                 now_s=1000.0, cooldown_s=600.0)
    assert plan.moves


def test_busy_host_is_neither_source_nor_target():
    hosts, vms = _hot_region()
    plan = _plan(hosts, vms, busy=m.BusySet(hosts=frozenset({"cool1"})))
    assert {mv.target for mv in plan.moves} == {"cool2"}
    plan = _plan(hosts, vms, busy=m.BusySet(hosts=frozenset({"hot"})))
    assert plan.moves == ()


def test_no_target_reports_rejections_per_check():
    hosts, vms = _hot_region()
    hosts = [hosts[0], b.host("cool1", cpu_pct=65.0, ram_pct=65.0, vcpus=40, ram_mb=81920)]
    plan = _plan(hosts, vms)
    assert plan.moves == ()
    [why] = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert "rejected by lb_target_max_load" in why.message


def test_minimum_improvement_prevents_ping_pong():
    hosts = [b.host("a", cpu_pct=81.0, ram_pct=81.0), b.host("b", cpu_pct=60.0, ram_pct=60.0)]
    vms = [_measured("v", "a", 3.2, 13107)]
    plan = _plan(hosts, vms, min_improvement_pct=50.0)
    assert plan.moves == ()
    assert "min_improvement" in [r for r in plan.reasons
                                 if r.code == reasons.NO_TARGET][0].message


def test_anti_affinity_respected_by_lb():
    group = m.ServerGroup("g", "web", m.ANTI_AFFINITY, members=("v0", "w"))
    hosts, vms = _hot_region({0: {"server_group_id": "g"}})
    vms = vms + [b.vm("w", "cool1", server_group_id="g")]
    plan = _plan(hosts, vms, [group])
    assert ("v0", "cool1") not in [(mv.vm_id, mv.target) for mv in plan.moves]


def test_lb_plan_is_deterministic():
    hosts, vms = _hot_region()
    assert _plan(hosts, vms) == _plan(hosts, vms)


def test_the_overload_acted_on_leads_the_reasons_not_a_dead_hosts_missing_metrics():
    hosts, vms = _hot_region()
    plan = _plan([b.host("dead")] + hosts, vms)
    assert plan.moves
    codes = [r.code for r in plan.reasons]
    assert codes[0] == reasons.OVERLOADED and reasons.NO_METRICS in codes
    assert plan.reasons[0].message == "1 hypervisor of %s overloaded" % b.AGG
    hot = plan.reasons[1]  # then one reason per overloaded host, with its figures
    assert (hot.code, hot.host, hot.message) == (
        reasons.OVERLOADED, "hot", "hot syn_score 90% > threshold 80%, cpu 90% >= ceiling 85%")
    assert dict(hot.details) == {"syn_score": 90.0, "threshold": 80.0, "cpu": 90.0, "cpu_ceiling": 85.0}


def _cpu_hot_region():
    """hot at 100% CPU and 45% RAM (syn_score 72.5 < 80); a busy small VM, an idle big one."""
    hosts = [b.host("hot", vcpus=40, ram_mb=163840, cpu_pct=100.0, ram_pct=45.0,
                    used_vcpus=40, used_ram_mb=114688),
             b.host("cool", vcpus=40, ram_mb=163840, cpu_pct=20.0, ram_pct=45.0)]
    vms = [_measured("busy-small", "hot", 12, 8192), _measured("idle-big", "hot", 2, 65536),
           _measured("mid", "hot", 6, 40960)]
    return hosts, vms


def _default_plan(hosts, vms, **config):
    snap = b.snapshot(hosts, vms)
    return lb.plan_balancing(snap, AppConfig(), b.agg_config(**config), m.BusySet())


def test_a_host_at_its_cpu_ceiling_is_overloaded_whatever_its_syn_score():
    hosts, vms = _cpu_hot_region()
    plan = _default_plan(hosts, vms)
    assert plan.reasons[0].code == reasons.OVERLOADED
    assert [r.message for r in plan.reasons[:2]] == ["1 hypervisor of %s overloaded" % b.AGG,
                                                     "hot cpu 100% >= ceiling 85%"]
    # most CPU per GB copied first; relieved down to the target limit (ceiling 85 less the
    # hysteresis 10): one move does it, and the idle big VM never moves
    assert [mv.vm_id for mv in plan.moves] == ["busy-small"]
    assert plan.moves[0].load.source.cpu_after_pct == pytest.approx(70.0)


def test_a_relieved_host_stops_under_the_target_limit_not_at_the_coolest_healthy_host():
    hosts = [b.host("hot", vcpus=40, ram_mb=163840, cpu_pct=95.0, ram_pct=45.0, used_vcpus=40,
                    used_ram_mb=32768),
             b.host("warm", vcpus=40, ram_mb=163840, cpu_pct=60.0, ram_pct=45.0),
             b.host("cold", vcpus=40, ram_mb=163840, cpu_pct=10.0, ram_pct=45.0)]
    vms = [_measured("v%d" % i, "hot", 9.5, 8192) for i in range(4)]
    plan = _default_plan(hosts, vms)
    # 95 - 23.75 = 71.25 <= 75: under its ceiling with the hysteresis to spare, though above
    # the warm host's 60
    assert [(mv.source, mv.target) for mv in plan.moves] == [("hot", "cold")]
    assert plan.moves[0].load.source.cpu_after_pct == pytest.approx(71.25)


def _plan_of_a_host_at_86_cpu(vms):
    """The plan of a host at 86% CPU (11 points over its target limit, 75) carrying ``vms``, and a cold host."""
    hosts = [b.host("hot", vcpus=40, ram_mb=327680, cpu_pct=86.0, ram_pct=45.0, used_vcpus=40,
                    used_ram_mb=sum(vm.flavor.ram_mb for vm in vms)),
             b.host("cold", vcpus=40, ram_mb=327680, cpu_pct=10.0, ram_pct=45.0)]
    return _default_plan(hosts, vms)


def test_the_vm_carrying_most_of_the_hot_resource_per_gb_moves_even_beyond_the_need():
    # 11 points are needed (86 -> 75): "enough" does just that with 8 GB; "busy" carries 30
    # points with 16 GB, more CPU per GB copied, so one move relieves far more
    plan = _plan_of_a_host_at_86_cpu([_measured("enough", "hot", 4.4, 8192), _measured("busy", "hot", 12, 16384)])
    assert [mv.vm_id for mv in plan.moves] == ["busy"]
    assert plan.moves[0].load.source.cpu_after_pct == pytest.approx(56.0)


def test_below_level_5_a_vm_far_bigger_than_the_need_counts_for_three_times_the_need():
    # 11 points are needed. "busy-big" carries 40 points with 72 GB, more CPU per GB copied
    # (plus 32 GB a migration) than "enough", 12 points with 4 GB: 0.38 against 0.33. But only
    # 3 x 11 = 33 of its points count (lb.RELIEF_CAP), 0.32 a GB: "enough" goes, alone
    # relieving the host, and 4 GB are copied instead of 72
    plan = _plan_of_a_host_at_86_cpu([_measured("busy-big", "hot", 16, 73728), _measured("enough", "hot", 4.8, 4096)])
    assert [mv.vm_id for mv in plan.moves] == ["enough"]
    assert plan.moves[0].load.source.cpu_after_pct == pytest.approx(74.0)


def test_without_the_ceiling_the_same_host_is_not_overloaded():
    hosts, vms = _cpu_hot_region()
    plan = _default_plan(hosts, vms, lb_ceilings={"cpu": None, "ram": 95.0, "net": 90.0,
                                                  "hugepages": None})
    assert plan.moves == ()
    assert [r.code for r in plan.reasons] == [reasons.NO_OVERLOAD]
    assert "ram 95%" in plan.reasons[0].message and "cpu" not in plan.reasons[0].message


def test_a_target_stays_below_its_ceiling_less_the_hysteresis():
    hosts, vms = _cpu_hot_region()
    hosts[1] = b.host("cool", vcpus=40, ram_mb=163840, cpu_pct=66.0, ram_pct=45.0)
    plan = _default_plan(hosts, vms)
    for mv in plan.moves:
        assert mv.load.target.cpu_after_pct <= 75.0
    assert "busy-small" not in [mv.vm_id for mv in plan.moves]  # 66 + 30 > 75


def test_moves_per_host_are_capped():
    hosts = [b.host("hot", vcpus=40, ram_mb=163840, cpu_pct=100.0, ram_pct=45.0)] + [
        b.host("cool%d" % i, vcpus=40, ram_mb=163840, cpu_pct=10.0, ram_pct=45.0) for i in range(4)]
    vms = [_measured("v%d" % i, "hot", 2, 2048) for i in range(20)]
    snap = b.snapshot(hosts, vms)
    plan = lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet(), max_moves_per_host=3)
    assert len(plan.moves) == 3


def test_a_vm_moved_after_the_snapshot_is_not_planned_from_it():
    hosts, vms = _cpu_hot_region()
    snap = b.snapshot(hosts, vms)
    plan = lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet(),
                             recent_moves={"busy-small": snap.taken_at + 5.0},
                             now_s=snap.taken_at + 10.0, cooldown_s=0.0)
    assert "busy-small" not in [mv.vm_id for mv in plan.moves]
    [why] = [r for r in plan.reasons if r.code == reasons.COOLDOWN]
    assert "after this snapshot" in why.message


def test_overload_streaks_count_consecutive_runs_from_the_newest_back():
    runs = [{"a", "b"}, {"a", "c"}, {"a", "b"}]
    assert lb.overload_streaks(runs) == {"a": 3, "b": 1}
    assert lb.overload_streaks([set(), {"a"}]) == {}
    assert lb.overload_streaks([]) == {}


def test_a_host_overloaded_for_fewer_runs_than_lb_persistence_waits_and_says_so():
    hosts, vms = _cpu_hot_region()
    snap = b.snapshot(hosts, vms)
    config = b.agg_config(lb_persistence=3)
    waiting = lb.plan_balancing(snap, AppConfig(), config, m.BusySet(), overloaded_runs={"hot": 1})
    assert waiting.moves == ()
    assert [r.code for r in waiting.reasons] == [reasons.LB_IMBALANCE_PENDING] * 2
    assert dict(waiting.reasons[1].details)["runs"] == 2 and waiting.reasons[1].host == "hot"
    assert reasons.nothing_to_do(waiting.reasons)  # a quiet run: recorded on the cycle
    acting = lb.plan_balancing(snap, AppConfig(), config, m.BusySet(), overloaded_runs={"hot": 2})
    assert acting.moves and {mv.source for mv in acting.moves} == {"hot"}
    assert acting.reasons[0].code == reasons.OVERLOADED


def test_lb_min_gain_of_the_aggregate_refuses_moves_that_narrow_the_gap_less():
    hosts = [b.host("hot", vcpus=40, ram_mb=163840, cpu_pct=86.0, ram_pct=45.0, used_vcpus=8, used_ram_mb=16384),
             b.host("warm", vcpus=40, ram_mb=163840, cpu_pct=60.0, ram_pct=45.0)]
    # 11 points move: hot 86 -> 75, warm 60 -> 71, the gap 26 -> 4 narrows by 22 points
    snap = b.snapshot(hosts, [_measured("v1", "hot", 4.4, 8192), _measured("v2", "hot", 4.4, 8192)])
    assert len(lb.plan_balancing(snap, AppConfig(), b.agg_config(lb_min_gain=22.0), m.BusySet()).moves) == 1
    plan = lb.plan_balancing(snap, AppConfig(), b.agg_config(lb_min_gain=23.0), m.BusySet())
    assert plan.moves == ()
    assert lb.NOT_ENOUGH_GAIN in dict(plan.reasons[-1].details)


def test_a_plan_touches_a_host_at_most_as_often_as_the_executor_runs_migrations_to_it():
    assert lb.move_cap(10) == lb.DEFAULT_MAX_MOVES_PER_HOST
    assert lb.move_cap(2) == 2 and lb.move_cap(0) == 1


def test_hosts_a_move_touched_within_the_metrics_window_are_neither_relieved_nor_filled():
    hosts, vms = _cpu_hot_region()
    snap = b.snapshot(hosts, vms)  # metrics averaged over 300 s
    just_filled = lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet(),
                                    moved_hosts={"cool": snap.taken_at - 17})
    assert just_filled.moves == ()
    (stuck,) = [r for r in just_filled.reasons if r.code == reasons.NO_TARGET]
    assert stuck.rejected_hosts == (("cool", reasons.METRICS_SETTLING, 3),)
    just_relieved = lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet(),
                                      moved_hosts={"hot": snap.taken_at - 17})
    assert just_relieved.moves == () and [r.code for r in just_relieved.reasons] == [reasons.METRICS_SETTLING] * 2
    assert reasons.nothing_to_do(just_relieved.reasons)
    count, hot = just_relieved.reasons
    assert count.host is None and dict(count.details) == {"hypervisors": 1, "window_s": 300.0, "first_in_s": 283.0}
    assert "less than 300 s (the metrics window) before these metrics" in count.message
    assert hot.host == "hot" and hot.message == "hot: a move 17 s before these metrics"
    settled = lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet(),
                                moved_hosts={"hot": snap.taken_at - 301, "cool": snap.taken_at - 301})
    assert [(mv.source, mv.target) for mv in settled.moves] == [("hot", "cool")]


def _with_nova_migrations(snap, *records):
    """``snap`` with Nova's migration records (status, type, source, dest, seconds before the snapshot)."""
    migrations = tuple(m.Migration(id=n, server_id="vm-%d" % n, migration_type=kind, status=status,
                                   source_host=source, dest_host=dest, created_at=snap.taken_at - ago - 5,
                                   updated_at=snap.taken_at - ago)
                       for n, (status, kind, source, dest, ago) in enumerate(records, 1))
    return msgspec.structs.replace(snap, migrations=migrations)


def test_a_move_novas_records_show_settles_its_hosts_whoever_asked_for_it():
    hosts, vms = _cpu_hot_region()
    snap = b.snapshot(hosts, vms)
    operators = _with_nova_migrations(snap, ("completed", "live-migration", "cool", "hot", 17))
    plan = lb.plan_balancing(operators, AppConfig(), b.agg_config(), m.BusySet())
    assert plan.moves == () and {r.code for r in plan.reasons} == {reasons.METRICS_SETTLING}
    assert [r.host for r in plan.reasons] == [None, "hot"]  # the count, then the host
    assert lb.settling_hosts(operators, None) == {"cool": 17, "hot": 17}
    # KeyVRM's own record of a later move of the same host wins; a record under way counts
    assert lb.settling_hosts(operators, {"hot": snap.taken_at - 5}) == {"cool": 17, "hot": 5}
    assert lb.settling_hosts(_with_nova_migrations(snap, ("running", "live-migration", "hot", "cool", 2)),
                             None) == {"hot": 2, "cool": 2}


def test_nova_records_of_moves_that_failed_or_ended_before_the_metrics_window_settle_nothing():
    hosts, vms = _cpu_hot_region()
    snap = _with_nova_migrations(b.snapshot(hosts, vms), ("error", "live-migration", "hot", "cool", 17),
                                 ("cancelled", "live-migration", "hot", "cool", 10),
                                 ("done", "evacuation", "gone", "cool", 301),
                                 ("confirmed", "migration", "x", "hot", 400))
    assert lb.settling_hosts(snap, None) == {}
    assert [(mv.source, mv.target) for mv in lb.plan_balancing(snap, AppConfig(), b.agg_config(), m.BusySet()).moves] \
        == [("hot", "cool")]
