"""Property tests over generated small regions: plan invariants of HA and LB."""

import collections

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
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


def _assert_capacity_and_groups(snap, moves):
    index = snap.index()
    added = collections.defaultdict(lambda: [0, 0])
    location = {vm.id: vm.host for vm in snap.vms}
    for mv in moves:
        vm = index.vms[mv.vm_id]
        added[mv.target][0] += vm.flavor.vcpus
        added[mv.target][1] += vm.flavor.ram_mb
        location[mv.vm_id] = mv.target
    pages = collections.Counter()
    for mv in moves:
        vm = index.vms[mv.vm_id]
        if hugepages.wants_hugepages(hugepages.requested_page_size(vm.flavor)):
            pages[mv.target] += hugepages.pages_needed(vm.flavor.ram_mb, regiongen.PAGE_KB)
    for host, (vcpus, ram_mb) in added.items():
        hyper = index.hypervisors[host]
        inv = hyper.inventories
        assert inv[m.VCPU].used + vcpus <= inv[m.VCPU].capacity
        assert inv[m.MEMORY_MB].used + ram_mb <= inv[m.MEMORY_MB].capacity
        free_pages = sum(hp.free_pages for hp in hyper.hugepages)
        assert pages[host] <= free_pages
    for group in snap.server_groups:
        if group.policy != m.ANTI_AFFINITY:
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
        assert mv.target not in busy.hosts and mv.source not in busy.hosts
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
