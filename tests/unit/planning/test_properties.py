"""Property tests over generated small regions: plan invariants of HA and LB."""

import collections
import dataclasses

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.planning import ha
from keyvrm.planning import lb
from keyvrm.scheduling import hugepages
from tests.unit.planning import regiongen
from tests.unit.planning.regiongen import generate_region
from tests.unit.planning.regiongen import RegionShape

APP = AppConfig(enabled=True)

regions = st.builds(
    lambda hosts, seed, huge, hot: (generate_region(RegionShape(
        hosts=hosts, aggregate_size=hosts, vms_per_host=(1, 8), fill=(0.5, 0.95),
        hotspot_share=(hot, hot), hugepage_aggregate_share=huge, anti_affinity_share=0.3,
        no_evac_share=0.15, no_migr_share=0.15), seed)),
    st.integers(3, 10), st.integers(0, 10 ** 6), st.sampled_from([0.0, 1.0]),
    st.floats(0.0, 0.6))


def _config(snap, **kwargs):
    return AggregateConfig(name=snap.aggregates[0].name, marker="HA+LB", no_op_mode=False,
                           no_op_reason=None, **kwargs)


def _busy(snap, data):
    names = [h.name for h in snap.hypervisors]
    hosts = data.draw(st.sets(st.sampled_from(names), max_size=2))
    vm_ids = [vm.id for vm in snap.vms]
    vms = data.draw(st.sets(st.sampled_from(vm_ids), max_size=3)) if vm_ids else set()
    return m.BusySet(hosts=frozenset(hosts), vms=frozenset(vms))


def _assert_capacity_and_groups(snap, moves, groups=True):
    """No move overfills its target; with ``groups``, none breaks an anti-affinity group.

    Moves are applied in plan order: a host that gave VMs away may take others. Groups are
    checked only when Nova checks them (``groups``).
    """
    index = snap.index()
    added = collections.defaultdict(lambda: [0, 0, 0])  # vcpus, ram_mb, pages
    location = {vm.id: vm.host for vm in snap.vms}
    for mv in moves:
        vm = index.vms[mv.vm_id]
        pages = (hugepages.pages_needed(vm.flavor.ram_mb, regiongen.PAGE_KB)
                 if hugepages.wants_hugepages(hugepages.requested_page_size(vm.flavor)) else 0)
        for host, sign in ((mv.source, -1), (mv.target, 1)):
            added[host][0] += sign * vm.flavor.vcpus
            added[host][1] += sign * vm.flavor.ram_mb
            added[host][2] += sign * pages
        location[mv.vm_id] = mv.target
        hyper = index.hypervisors[mv.target]
        inv = hyper.inventories
        vcpus, ram_mb, pages = added[mv.target]
        assert inv[m.VCPU].used + vcpus <= inv[m.VCPU].capacity
        assert inv[m.MEMORY_MB].used + ram_mb <= inv[m.MEMORY_MB].capacity
        assert pages <= sum(hp.free_pages for hp in hyper.hugepages)
    for group in snap.server_groups:
        if not groups or group.policy != m.ANTI_AFFINITY:
            continue
        per_host = collections.Counter(location[v] for v in group.members)
        for host in added:
            assert per_host[host] <= group.rules.get("max_server_per_host", 1)


@settings(max_examples=60, deadline=None)
@given(regions, st.data())
def test_ha_plan_invariants(snap, data):
    busy = _busy(snap, data)
    candidates = sorted(h.name for h in snap.hypervisors)
    fenced = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=2,
                                unique=True))
    allow_rebuild = data.draw(st.booleans())
    plan = ha.plan_evacuation(snap, APP, _config(snap), busy, fenced,
                              allow_rebuild=allow_rebuild)
    index = snap.index()
    for mv in plan.moves:
        vm = index.vms[mv.vm_id]
        assert mv.source in fenced and mv.target not in fenced
        assert mv.target not in busy.hosts  # a fenced source is planned busy or not: dead, its work cannot progress
        assert mv.vm_id not in busy.vms
        assert not vm.no_evac
        assert allow_rebuild or not vm.image_backed
    assert len({mv.vm_id for mv in plan.moves}) == len(plan.moves)
    _assert_capacity_and_groups(snap, plan.moves)
    assert plan == ha.plan_evacuation(snap, APP, _config(snap), busy, fenced,
                                      allow_rebuild=allow_rebuild)


@settings(max_examples=60, deadline=None)
@given(regions, st.data(), st.floats(50.0, 75.0))
def test_lb_plan_invariants(snap, data, target_max):
    busy = _busy(snap, data)
    config = _config(snap, lb_target_max_load=target_max, lb_overload_threshold=80.0)
    plan = lb.plan_balancing(snap, APP, config, busy)
    index = snap.index()
    for mv in plan.moves:
        vm = index.vms[mv.vm_id]
        assert mv.source not in busy.hosts and mv.target not in busy.hosts
        assert mv.vm_id not in busy.vms
        assert not vm.no_migr
        assert mv.load.target.syn_score_after_pct <= target_max
        assert mv.load.source.syn_score_after_pct < mv.load.source.syn_score_before_pct
    assert len({mv.vm_id for mv in plan.moves}) == len(plan.moves)
    _assert_capacity_and_groups(snap, plan.moves)
    assert plan == lb.plan_balancing(snap, APP, config, busy)


hot_regions = st.builds(
    lambda hosts, seed, shape: generate_region(dataclasses.replace(
        shape(hosts, hosts), vms_per_host=(2, 10), hotspot_share=(0.2, 0.4),
        anti_affinity_share=0.3, no_migr_share=0.1), seed),
    st.integers(3, 14), st.integers(0, 10 ** 6),
    st.sampled_from([regiongen.cpu_hot_shape, regiongen.ram_hot_shape]))

lb_settings = st.fixed_dictionaries({
    "lb_overload_threshold": st.floats(50.0, 95.0),
    "lb_ceilings": st.fixed_dictionaries({
        "cpu": st.one_of(st.none(), st.floats(60.0, 100.0)),
        "ram": st.one_of(st.none(), st.floats(60.0, 100.0)),
        "net": st.one_of(st.none(), st.floats(60.0, 100.0)),
        "hugepages": st.none()}),
    "lb_weights": st.fixed_dictionaries({
        "cpu": st.floats(0.1, 2.0), "ram": st.floats(0.0, 2.0),
        "net": st.floats(0.0, 1.0), "hugepages": st.just(0.0)}),
})


def _hot_config(snap, data):
    fields = data.draw(lb_settings)
    fields["lb_target_max_load"] = fields["lb_overload_threshold"] - data.draw(st.floats(5.0, 20.0))
    return _config(snap, **fields)


@settings(max_examples=80, deadline=None)
@given(hot_regions, st.data())
def test_lb_plan_keeps_every_limit_and_rule_on_hot_regions(snap, data):
    busy = _busy(snap, data)
    config = _hot_config(snap, data)
    filters = data.draw(st.sampled_from([APP.nova_filters, (), APP.nova_filters + (
        "NumInstancesFilter",)]))
    app = dataclasses.replace(APP, nova_filters=filters)
    cap = data.draw(st.sampled_from([1, 2, lb.DEFAULT_MAX_MOVES_PER_HOST]))
    plan = lb.plan_balancing(snap, app, config, busy, max_moves_per_host=cap)
    index = snap.index()
    touched = collections.Counter()
    for mv in plan.moves:
        vm = index.vms[mv.vm_id]
        assert mv.source not in busy.hosts and mv.target not in busy.hosts
        assert mv.vm_id not in busy.vms and not vm.no_migr
        target = mv.load.target
        assert target.syn_score_after_pct <= config.lb_target_max_load + 1e-9
        for key, after in (("cpu", target.cpu_after_pct), ("ram", target.ram_after_pct),
                           ("net", target.net_after_pct)):
            limit = config.lb_target_ceiling(key)
            assert limit is None or after is None or after <= limit + 1e-9
        touched[mv.source] += 1
        touched[mv.target] += 1
    assert max(touched.values(), default=0) <= cap
    assert len({mv.vm_id for mv in plan.moves}) == len(plan.moves)
    # without Nova's ServerGroupAntiAffinityFilter Nova places group members anywhere, and so does LB
    _assert_capacity_and_groups(snap, plan.moves, groups="ServerGroupAntiAffinityFilter" in filters)
    _assert_filters_pass(snap, app, config, plan.moves)


def _assert_filters_pass(snap, app, config, moves):
    """Each move's target passes the Nova filters with the earlier moves of the plan applied."""
    for i, mv in enumerate(moves):
        earlier = regiongen.moved_region(snap, moves[:i], {})
        ctx = build_context(earlier, config.name, app.nova_filters, m.BusySet())
        request = ctx.selector.request_for(ctx.index.vms[mv.vm_id])
        state = ctx.ledger.hosts[mv.target]
        assert all(f.host_passes(state, request) for f in ctx.selector.filters), mv


@settings(max_examples=80, deadline=None)
@given(hot_regions, st.data())
def test_a_second_lb_plan_on_the_moved_region_moves_nothing(snap, data):
    config = _hot_config(snap, data)
    plan = lb.plan_balancing(snap, APP, config, m.BusySet(), max_moves_per_host=1000)
    after = regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves))
    again = lb.plan_balancing(after, APP, config, m.BusySet(), max_moves_per_host=1000,
                              recent_moves={mv.vm_id: snap.taken_at for mv in plan.moves},
                              now_s=snap.taken_at + 1.0)
    assert again.moves == ()
