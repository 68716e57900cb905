"""HA second chance: VMs the ordered pass leaves out, placed by re-packing the plan's own VMs."""

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import failover
from keyvrm.planning import ha
from keyvrm.scheduling import capacity
from tests.unit.planning import builders as b
from tests.unit.planning.regiongen import generate_region
from tests.unit.planning.regiongen import RegionShape
from tests.unit.planning.test_properties import _assert_capacity_and_groups
from tests.unit.planning.test_properties import _config

DEAD = "dead"
GIB = 1024


def _dead():
    return b.host(DEAD, state=m.SERVICE_DOWN, heartbeat_age_s=999)


def _snap(hosts, vms, groups=()):
    return b.snapshot([_dead()] + hosts, vms, groups)


def _plan(snap, app=None):
    return ha.plan_evacuation(snap, app or AppConfig(), b.agg_config(), m.BusySet(), [DEAD])


def _ordered_pass(snap, app=None):
    app = app or AppConfig()
    ctx = build_context(snap, b.AGG, app.nova_filters, m.BusySet())
    vms = ha.evacuation_order(snap.index().vms_on(DEAD))
    return ha.ordered_pass(ctx, vms, frozenset([DEAD]), {})


def _without_target(plan):
    return [r for r in plan.reasons if r.code in failover.NO_TARGET_CODES]


def _two_hosts_split_room():
    # h1 has 10 GiB free, h2 6 GiB. In SPEC order "cpu4" (most vCPUs) goes first, to h1
    # (most free RAM), and leaves no host with the 10 GiB "ram10" needs; swapping them
    # fits both.
    hosts = [b.host("h1", ram_mb=10 * GIB), b.host("h2", ram_mb=6 * GIB)]
    vms = [b.vm("cpu4", DEAD, vcpus=4, ram_mb=4 * GIB),
           b.vm("ram10", DEAD, vcpus=1, ram_mb=10 * GIB)]
    return hosts, vms


def test_ordered_pass_alone_leaves_a_vm_without_target():
    hosts, vms = _two_hosts_split_room()
    first = _ordered_pass(_snap(hosts, vms))
    assert first.targets == {"cpu4": "h1"}
    assert list(first.left_over) == ["ram10"]


def test_left_over_vm_is_placed_by_moving_a_vm_this_plan_placed():
    hosts, vms = _two_hosts_split_room()
    plan = _plan(_snap(hosts, vms))
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("cpu4", "h2"), ("ram10", "h1")]
    assert plan.reasons == ()


def test_vms_running_elsewhere_are_never_moved_to_make_room():
    # Only moving "running" (already on h1, not part of the evacuation) would make room.
    hosts = [b.host("h1", ram_mb=16 * GIB, used_ram_mb=8 * GIB),
             b.host("h2", ram_mb=8 * GIB)]
    vms = [b.vm("running", "h1", ram_mb=8 * GIB), b.vm("big", DEAD, ram_mb=10 * GIB)]
    plan = _plan(_snap(hosts, vms))
    assert plan.moves == ()
    assert [r.code for r in plan.reasons] == [capacity.RAM_DEPLETED]


def test_a_vm_placed_in_order_is_never_dropped_for_more_smaller_ones():
    # Placing the two small VMs instead of "first" would place more VMs, but "first"
    # comes first in the evacuation order and keeps its place.
    hosts = [b.host("h1", ram_mb=10 * GIB)]
    vms = [b.vm("first", DEAD, vcpus=4, ram_mb=10 * GIB),
           b.vm("small1", DEAD, vcpus=1, ram_mb=5 * GIB),
           b.vm("small2", DEAD, vcpus=1, ram_mb=5 * GIB)]
    plan = _plan(_snap(hosts, vms))
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("first", "h1")]
    assert len(plan.reasons) == 2


def test_moving_a_planned_vm_never_breaks_its_anti_affinity():
    # The swap of the split-room case would put "cpu4" next to its group's member on h2.
    hosts, vms = _two_hosts_split_room()
    group = m.ServerGroup("g", "web", m.ANTI_AFFINITY, members=("cpu4", "peer"))
    vms = [b.vm("cpu4", DEAD, vcpus=4, ram_mb=4 * GIB, server_group_id="g"), vms[1],
           b.vm("peer", "h2", vcpus=1, ram_mb=1 * GIB, server_group_id="g")]
    hosts[1] = b.host("h2", ram_mb=7 * GIB, used_ram_mb=1 * GIB, used_vcpus=1)
    plan = _plan(_snap(hosts, vms, [group]))
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("cpu4", "h1")]
    assert [r.code for r in plan.reasons] == [capacity.RAM_DEPLETED]


def test_second_chance_goes_to_evacuate_order_vms_before_smaller_ones():
    # After "cpu4" lands on h1 neither "ordered" (10 GiB) nor "ram9" fits; once "cpu4"
    # moves to h2 only one of them does, and evacuate_order wins over the smaller size.
    hosts, _ = _two_hosts_split_room()
    vms = [b.vm("cpu4", DEAD, vcpus=4, ram_mb=4 * GIB, evacuate_order=1),
           b.vm("ordered", DEAD, vcpus=1, ram_mb=10 * GIB, evacuate_order=5),
           b.vm("ram9", DEAD, vcpus=1, ram_mb=9 * GIB)]
    plan = _plan(_snap(hosts, vms))
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("cpu4", "h2"), ("ordered", "h1")]


def test_among_unordered_left_over_vms_the_smallest_goes_first():
    hosts, _ = _two_hosts_split_room()
    vms = [b.vm("cpu4", DEAD, vcpus=4, ram_mb=4 * GIB),
           b.vm("ram10", DEAD, vcpus=2, ram_mb=10 * GIB),
           b.vm("ram9", DEAD, vcpus=1, ram_mb=9 * GIB)]
    plan = _plan(_snap(hosts, vms))
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("cpu4", "h2"), ("ram9", "h1")]


full_regions = st.builds(
    lambda hosts, seed: generate_region(RegionShape(
        hosts=hosts, aggregate_size=hosts, vms_per_host=(3, 12), fill=(0.85, 0.95),
        hotspot_share=(0.0, 0.0), hugepage_aggregate_share=0.0, anti_affinity_share=0.3),
        seed),
    st.integers(5, 12), st.integers(0, 10 ** 6))


@settings(max_examples=40, deadline=None)
@given(full_regions, st.data())
def test_second_chance_keeps_invariants_and_every_vm_the_ordered_pass_placed(snap, data):
    names = sorted(h.name for h in snap.hypervisors)
    fenced = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names) // 2,
                                unique=True))
    app = AppConfig(enabled=True)
    plan = ha.plan_evacuation(snap, app, _config(snap), m.BusySet(), fenced)
    ctx = build_context(snap, snap.aggregates[0].name, app.nova_filters, m.BusySet())
    index = snap.index()
    evacuable = [vm for host in sorted(fenced) for vm in index.vms_on(host)
                 if not vm.no_evac and not vm.image_backed]
    kept = ha.place_evacuees(ctx, ha.evacuation_order(evacuable), frozenset(fenced), {})
    planned = {mv.vm_id for mv in plan.moves}
    assert kept.targets == {mv.vm_id: mv.target for mv in plan.moves}
    assert set(kept.first_pass.targets) <= planned
    # spreading never costs a VM: the most-free-RAM plan places no more, of any priority
    ctx = build_context(snap, snap.aggregates[0].name, app.nova_filters, m.BusySet())
    fullest = ha._placement(ctx, ha.evacuation_order(evacuable), frozenset(fenced), {}, None, False)
    assert ha._places_no_fewer(kept, fullest, evacuable)
    assert len(planned) == len(plan.moves)
    assert all(mv.target not in fenced for mv in plan.moves)
    assert len(plan.moves) + len(plan.reasons) >= len(evacuable)
    _assert_capacity_and_groups(snap, plan.moves)
    assert plan == ha.plan_evacuation(snap, app, _config(snap), m.BusySet(), fenced)
    # asked only what it leaves behind, the planner leaves the same VMs, for the same reasons
    left_only = ha.plan_evacuation(snap, app, _config(snap), m.BusySet(), fenced, left_behind_only=True)
    assert _without_target(left_only) == _without_target(plan)
