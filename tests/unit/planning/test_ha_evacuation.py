"""HA evacuation plans: order, exclusions, capacity, spreading, server groups, busy hosts, round 2."""

import collections

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import ha
from keyvrm.planning import plan as plan_mod
from keyvrm.planning import reasons
from keyvrm.scheduling import capacity
from tests.unit.planning import builders as b

DEAD = "dead"


def _plan(hosts, vms, groups=(), app=None, busy=m.BusySet(), **kwargs):
    snap = b.snapshot(hosts, vms, groups)
    return ha.plan_evacuation(snap, app or AppConfig(), b.agg_config(), busy, [DEAD], **kwargs)


def _dead():
    return b.host(DEAD, state=m.SERVICE_DOWN, heartbeat_age_s=999)


def _codes(plan):
    return [r.code for r in plan.reasons]


def test_evacuation_order_uses_evacuate_order_then_alternates_cpu_and_ram():
    vms = [b.vm("cpu8", DEAD, 8, 1024), b.vm("cpu4", DEAD, 4, 2048),
           b.vm("ram32", DEAD, 1, 32768), b.vm("ram16", DEAD, 2, 16384),
           b.vm("first", DEAD, 1, 512, evacuate_order=1),
           b.vm("zeroth", DEAD, 1, 512, evacuate_order=0)]
    ordered = [vm.id for vm in ha.evacuation_order(vms)]
    assert ordered == ["zeroth", "first", "cpu8", "ram32", "cpu4", "ram16"]


def test_all_vms_placed_with_targets_and_round_one():
    vms = [b.vm("v%d" % i, DEAD) for i in range(4)]
    plan = _plan([_dead(), b.host("h1"), b.host("h2")], vms)
    assert sorted(mv.vm_id for mv in plan.moves) == ["v0", "v1", "v2", "v3"]
    assert {mv.action for mv in plan.moves} == {plan_mod.EVACUATE}
    assert {mv.ha_round for mv in plan.moves} == {1}
    assert {mv.source for mv in plan.moves} == {DEAD}
    assert {mv.target for mv in plan.moves} == {"h1", "h2"}


def test_no_evac_vm_is_skipped_with_reason():
    plan = _plan([_dead(), b.host("h1")], [b.vm("keep", DEAD, no_evac=True)])
    assert plan.moves == ()
    assert _codes(plan) == [reasons.EXCLUDED_BY_METADATA]
    assert "ha_no_evacuate" in plan.reasons[0].message


def test_local_disk_vm_needs_allow_rebuild():
    local = b.vm("local", DEAD, volume_backed=False)
    plan = _plan([_dead(), b.host("h1")], [local])
    assert _codes(plan) == [reasons.LOCAL_DISK]
    plan = _plan([_dead(), b.host("h1")], [local], allow_rebuild=True)
    assert plan.target_of("local") == "h1"


def test_each_placement_counts_before_the_next():
    vms = [b.vm("a", DEAD, ram_mb=6000), b.vm("b", DEAD, ram_mb=6000)]
    plan = _plan([_dead(), b.host("h1", ram_mb=8192)], vms)
    assert len(plan.moves) == 1
    assert _codes(plan) == [capacity.RAM_DEPLETED]
    assert "aggregate RAM depleted" in plan.reasons[0].message


def test_cpu_depletion_has_its_own_code():
    plan = _plan([_dead(), b.host("h1", vcpus=2)], [b.vm("a", DEAD, vcpus=4)])
    assert _codes(plan) == [capacity.CPU_DEPLETED]


def test_no_online_hypervisor():
    plan = _plan([_dead(), b.host("h1", state=m.SERVICE_DOWN)], [b.vm("a", DEAD)])
    assert _codes(plan) == [capacity.NO_ONLINE_HYPERVISOR]


def test_busy_host_is_never_a_target():
    busy = m.BusySet(hosts=frozenset({"h1"}))
    plan = _plan([_dead(), b.host("h1", ram_mb=10 ** 6), b.host("h2")], [b.vm("a", DEAD)],
                 busy=busy)
    assert plan.target_of("a") == "h2"


def test_busy_vm_is_not_planned():
    plan = _plan([_dead(), b.host("h1")], [b.vm("a", DEAD)],
                 busy=m.BusySet(vms=frozenset({"a"})))
    assert plan.moves == () and _codes(plan) == [reasons.BUSY]


def test_anti_affinity_spreads_and_reports_rejections_per_filter():
    group = m.ServerGroup("g", "web", m.ANTI_AFFINITY, members=("a", "b", "c"))
    vms = [b.vm(x, DEAD, server_group_id="g") for x in ("a", "b", "c")]
    plan = _plan([_dead(), b.host("h1"), b.host("h2"), b.host("h3", vcpus=1)], vms, [group])
    assert len({mv.target for mv in plan.moves}) == 2
    [why] = plan.reasons
    assert why.code == reasons.NO_TARGET
    assert "2 hosts rejected by ServerGroupAntiAffinityFilter" in why.message
    assert "1 host rejected by cpu_depleted" in why.message


def test_hard_affinity_members_of_a_dead_host_have_no_target_as_nova_refuses_them():
    # Nova's ServerGroupAffinityFilter counts the dead host where the group lives
    # (tests/nova/test_executor_real_nova.py shows real Nova refusing the evacuation).
    group = m.ServerGroup("g", "db", m.AFFINITY, members=("a", "b"))
    vms = [b.vm("a", DEAD, server_group_id="g"), b.vm("b", DEAD, server_group_id="g")]
    plan = _plan([_dead(), b.host("h1"), b.host("h2")], vms, [group])
    assert plan.moves == ()
    assert _codes(plan) == [reasons.NO_TARGET, reasons.NO_TARGET]
    assert all("2 hosts rejected by ServerGroupAffinityFilter" in r.message for r in plan.reasons)


def test_empty_filter_list_means_no_filtering_and_is_reported():
    group = m.ServerGroup("g", "web", m.ANTI_AFFINITY, members=("a", "b"))
    vms = [b.vm(x, DEAD, server_group_id="g") for x in ("a", "b")]
    plan = _plan([_dead(), b.host("h1")], vms, [group], app=AppConfig(nova_filters=()))
    assert len(plan.moves) == 2
    assert _codes(plan) == [reasons.NO_FILTERS]


def test_round_two_replans_only_given_vms_with_fresh_targets():
    vms = [b.vm("a", DEAD), b.vm("b", DEAD)]
    snap = b.snapshot([_dead(), b.host("h1"), b.host("h2")], vms)
    plan = ha.replan_evacuation(snap, AppConfig(), b.agg_config(), m.BusySet(), [DEAD],
                                {"a": (DEAD, "h1")})
    assert [(mv.vm_id, mv.target, mv.ha_round) for mv in plan.moves] == [("a", "h2", 2)]


def test_round_two_reports_vm_not_on_expected_host():
    snap = b.snapshot([_dead(), b.host("h1")], [b.vm("a", "h1")])
    plan = ha.replan_evacuation(snap, AppConfig(), b.agg_config(), m.BusySet(), [DEAD],
                                {"a": (DEAD, "h9")})
    assert plan.moves == ()
    assert _codes(plan) == [capacity.VM_NOT_ON_EXPECTED_HOST]


def test_plan_is_deterministic():
    vms = [b.vm("v%d" % i, DEAD, vcpus=1 + i % 3, ram_mb=1024 * (1 + i % 5)) for i in range(9)]
    hosts = [_dead()] + [b.host("h%d" % i, ram_mb=16384) for i in range(3)]
    assert _plan(hosts, vms) == _plan(hosts, vms)


def test_a_fenced_host_touched_by_other_work_is_evacuated_but_the_vm_that_work_holds_stays():
    plan = _plan([_dead(), b.host("h1", ram_mb=65536)], [b.vm("a", DEAD), b.vm("held", DEAD)],
                 busy=m.BusySet(hosts=frozenset({DEAD}), vms=frozenset({"held"})))
    assert [move.vm_id for move in plan.moves] == ["a"]
    assert [(r.code, r.vm_id) for r in plan.reasons] == [(reasons.BUSY, "held")]


def test_a_host_with_a_stale_heartbeat_gets_no_evacuated_vm_though_nova_says_up():
    dying = b.host("dying", ram_mb=262144, heartbeat_age_s=120)  # up in Nova, silent for 2 min
    hosts = [_dead(), dying, b.host("h1")]
    vms = [b.vm("v0", DEAD)]
    assert _plan(hosts, vms).target_of("v0") == "dying"  # most free RAM, when nothing says why not
    plan = _plan(hosts, vms, heartbeat_stale_after_s=60)
    assert plan.target_of("v0") == "h1"
    lone = _plan([_dead(), dying], vms, heartbeat_stale_after_s=60)
    [no_target] = [r for r in lone.reasons if r.code == reasons.NO_TARGET]
    assert [(host, check) for host, check, _ in no_target.rejected_hosts] == [
        ("dying", "host_silent")]  # silent 2 min: Nova's verdict (stale 60 s + 60 s) not due yet


def test_hosts_without_heartbeat_data_stay_targets():
    quiet = b.host("quiet", heartbeat_age_s=None)
    plan = _plan([_dead(), quiet], [b.vm("v0", DEAD)], heartbeat_stale_after_s=60)
    assert plan.target_of("v0") == "quiet"


def _soft_group_plan(policy):
    hosts = [_dead(), b.host("empty", ram_mb=131072), b.host("a", ram_mb=131072, used_ram_mb=65536),
             b.host("b", ram_mb=131072, used_ram_mb=65536)]
    group = m.ServerGroup("g", "web", policy, members=("w1", "w2", "w3"))
    vms = [b.vm(v, DEAD, ram_mb=4096, server_group_id="g") for v in ("w1", "w2", "w3")]
    return _plan(hosts, vms, [group])


def test_soft_anti_affinity_members_are_spread_as_novas_weigher_would_not_piled_on_the_emptiest_host():
    plan = _soft_group_plan(m.SOFT_ANTI_AFFINITY)
    assert sorted(mv.target for mv in plan.moves) == ["a", "b", "empty"]  # by free RAM alone: all on empty


def test_soft_affinity_members_are_kept_together():
    plan = _soft_group_plan(m.SOFT_AFFINITY)
    assert [mv.target for mv in plan.moves] == ["empty"] * 3


def _received(plan):
    return collections.Counter(mv.target for mv in plan.moves)


def _outcome(plan):
    """([(VM, target)] in plan order, [(code, VM)] of the reasons)."""
    return [(mv.vm_id, mv.target) for mv in plan.moves], [(r.code, r.vm_id) for r in plan.reasons]


def test_evacuated_vms_are_spread_over_the_targets_not_piled_on_the_freshly_empty_host():
    # "empty" was just restored; by free RAM alone it would take all four
    hosts = [_dead(), b.host("empty", ram_mb=131072), b.host("a", ram_mb=131072, used_ram_mb=65536),
             b.host("b", ram_mb=131072, used_ram_mb=65536)]
    plan = _plan(hosts, [b.vm("v%d" % i, DEAD, ram_mb=4096) for i in range(4)])
    assert _received(plan) == {"empty": 2, "a": 1, "b": 1}
    assert [mv.target for mv in plan.moves][:2] == ["empty", "a"]  # equals parted by free RAM (then name)


def test_a_plan_asked_only_what_it_leaves_behind_may_skip_spreading_but_leaves_the_same_vms():
    hosts = [_dead(), b.host("empty", ram_mb=131072), b.host("a", ram_mb=131072, used_ram_mb=65536)]
    vms = [b.vm("v%d" % i, DEAD, ram_mb=4096) for i in range(3)]
    full, left_only = _plan(hosts, vms), _plan(hosts, vms, left_behind_only=True)
    # most free RAM first places every VM: HA's spread plan leaves none behind either
    assert (_received(full), _codes(full)) == ({"empty": 2, "a": 1}, [])
    assert (_received(left_only), _codes(left_only)) == ({"empty": 3}, [])
    # a VM no host takes: both plans are made, the one HA keeps is the same
    vms.append(b.vm("giant", DEAD, ram_mb=262144))
    assert _outcome(_plan(hosts, vms, left_behind_only=True)) == _outcome(_plan(hosts, vms))


def test_the_most_free_ram_plan_is_kept_when_spreading_would_leave_a_vm_without_target():
    # spread: v3 on big, v2 on small (its first VM) takes small's last RAM, so v1 and v0
    # share big's 4 vCPUs and v0 finds no room; most free RAM first fits all four
    hosts = [_dead(), b.host("small", vcpus=4, ram_mb=8192), b.host("big", vcpus=8, ram_mb=16384)]
    vms = [b.vm("v3", DEAD, 4, 4096), b.vm("v2", DEAD, 2, 8192), b.vm("v1", DEAD, 4, 2048),
           b.vm("v0", DEAD, 1, 2048)]
    assert [vm.id for vm in ha.evacuation_order(vms)] == ["v3", "v2", "v1", "v0"]
    plan = _plan(hosts, vms)
    assert {mv.vm_id: mv.target for mv in plan.moves} == {"v3": "big", "v2": "big", "v1": "small", "v0": "big"}
    assert _codes(plan) == []


def test_spreading_never_costs_a_vm_of_a_higher_evacuate_order_tier_even_at_the_same_count():
    # both rules place three VMs; spread (v0 on h0, v1 on h1) leaves no host for v3, an
    # evacuate_order VM, and places the unordered v2 instead: most free RAM first is kept
    hosts = [_dead(), b.host("h0", vcpus=4, ram_mb=16384), b.host("h1", vcpus=8, ram_mb=8192)]
    vms = [b.vm("v0", DEAD, 1, 4096, evacuate_order=1), b.vm("v1", DEAD, 2, 2048, evacuate_order=1),
           b.vm("v3", DEAD, 4, 8192, evacuate_order=1), b.vm("v2", DEAD, 4, 4096)]
    assert _outcome(_plan(hosts, vms)) == ([("v0", "h0"), ("v1", "h0"), ("v3", "h1")], [(reasons.NO_TARGET, "v2")])


def test_spread_vms_keep_the_evacuate_order_first():
    hosts = [_dead(), b.host("h1", ram_mb=6144), b.host("h2", ram_mb=6144)]
    vms = [b.vm("big", DEAD, 4, 6144), b.vm("later", DEAD, 1, 4096, evacuate_order=2),
           b.vm("first", DEAD, 1, 4096, evacuate_order=1), b.vm("small", DEAD, 1, 2048)]
    # the ordered VMs take a host each; of the others only the small one still fits
    assert _outcome(_plan(hosts, vms)) == ([("first", "h1"), ("later", "h2"), ("small", "h1")],
                                           [(capacity.RAM_DEPLETED, "big")])


def test_when_no_rule_places_every_vm_the_spread_plan_is_kept_on_a_tie_and_the_ledger_counts_it():
    hosts = [_dead(), b.host("h1", ram_mb=16384), b.host("h2", ram_mb=12288)]
    vms = [b.vm("giant", DEAD, 1, 65536), b.vm("a", DEAD, 1, 2048), b.vm("b", DEAD, 1, 2048)]
    ctx = build_context(b.snapshot(hosts, vms), b.AGG, AppConfig().nova_filters, m.BusySet())
    kept = ha.place_evacuees(ctx, ha.evacuation_order(vms), frozenset([DEAD]), {})
    # most free RAM first would put both small VMs on h1; neither rule places the giant
    assert kept.targets == {"a": "h1", "b": "h2"} and list(kept.left_over) == ["giant"]
    assert [ctx.ledger.location(vm_id) for vm_id in ("giant", "a", "b")] == [DEAD, "h1", "h2"]
    assert [ctx.ledger.hosts[h].free(m.MEMORY_MB) for h in ("h1", "h2")] == [14336, 10240]
