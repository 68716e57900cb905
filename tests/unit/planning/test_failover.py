"""Failover analysis: which hosts HA could not fully evacuate, and the aggregate's tolerance."""

import msgspec

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import failover
from keyvrm.planning import ha
from keyvrm.scheduling import capacity
from tests.unit.planning import builders as b
from tests.unit.planning.regiongen import generate_region
from tests.unit.planning.regiongen import RegionShape

RAM_MB = 8192


def _host(name, *vms_ram_mb, ram_mb=RAM_MB):
    return b.host(name, ram_mb=ram_mb, used_ram_mb=sum(vms_ram_mb), used_vcpus=2 * len(vms_ram_mb))


def _analyse(hosts, vms, max_k=2, **kwargs):
    return failover.analyse_failover(b.snapshot(hosts, vms), AppConfig(), b.agg_config(), max_k=max_k,
                                     **kwargs)


def test_roomy_aggregate_tolerates_two_hosts():
    hosts = [_host("a", 2048), _host("b", 2048), _host("c"), _host("d")]
    vms = [b.vm("a1", "a", ram_mb=2048), b.vm("b1", "b", ram_mb=2048)]
    analysis = _analyse(hosts, vms)
    assert (analysis.tolerance, analysis.exact, analysis.at_risk, analysis.pairs_at_risk) == (2, True, (), ())


def test_host_whose_vm_fits_nowhere_is_at_risk_with_its_rejections():
    hosts = [_host("a", 6000), _host("b", 6000)]
    vms = [b.vm("a1", "a", ram_mb=6000), b.vm("b1", "b", ram_mb=6000)]
    analysis = _analyse(hosts, vms)
    assert analysis.tolerance == 0
    assert analysis.hosts_at_risk == ("a", "b")
    assert [risk.vm_ids for risk in analysis.at_risk] == [("a1",), ("b1",)]
    [reason] = analysis.at_risk[0].without_target
    assert reason.code == capacity.RAM_DEPLETED
    assert reason.rejected_hosts == (("b", capacity.RAM_DEPLETED, 1),)
    assert analysis.below(1) and not analysis.below(0)


def test_one_spare_host_tolerates_one_failure_not_two():
    hosts = [_host("a", 6000), _host("b", 6000), _host("c")]
    vms = [b.vm("a1", "a", ram_mb=6000), b.vm("b1", "b", ram_mb=6000)]
    analysis = _analyse(hosts, vms)
    assert analysis.tolerance == 1 and analysis.exact
    assert [risk.hosts for risk in analysis.pairs_at_risk] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert not analysis.below(1) and analysis.below(2)


def test_max_k_one_stops_after_single_hosts():
    hosts = [_host("a", 6000), _host("b", 6000), _host("c")]
    vms = [b.vm("a1", "a", ram_mb=6000), b.vm("b1", "b", ram_mb=6000)]
    assert _analyse(hosts, vms, max_k=1).tolerance == 1


def test_vms_ha_would_not_evacuate_do_not_count():
    hosts = [_host("a", 6000), _host("b", 6000)]
    vms = [b.vm("a1", "a", ram_mb=6000, no_evac=True), b.vm("b1", "b", ram_mb=6000, no_evac=True)]
    assert _analyse(hosts, vms).tolerance == 2


def test_large_aggregate_searches_only_the_worst_pairs_and_says_so():
    hosts = [_host("h%d" % i, 1024) for i in range(failover.EXACT_PAIRS_MAX_HOSTS + 1)]
    vms = [b.vm("v%d" % i, "h%d" % i, ram_mb=1024) for i in range(len(hosts))]
    analysis = _analyse(hosts, vms)
    assert (analysis.tolerance, analysis.exact) == (2, False)


def test_trial_plans_on_one_context_match_fresh_plans_of_each_host():
    """Full aggregates with server groups, HugePages, no_evac and local disks: one shared context, no drift."""
    for seed in (1, 2, 3):
        snap = generate_region(RegionShape(hosts=24, aggregate_size=12, fill=(0.85, 0.98),
                                           hugepage_aggregate_share=0.5, anti_affinity_share=0.3), seed)
        index = snap.index()
        for aggregate in snap.aggregates:
            config = AggregateConfig(name=aggregate.name, marker="HA", no_op_mode=False, storage_mode="shared")
            analysis = failover.analyse_failover(snap, AppConfig(), config, max_k=1, index=index)
            predicted = {risk.hosts[0]: [(r.vm_id, r.code, r.rejected_hosts) for r in risk.without_target]
                         for risk in analysis.at_risk}
            fresh = {}
            for name in aggregate.hosts:
                plan = ha.plan_evacuation(snap, AppConfig(), config, m.BusySet(), [name], index=index)
                found = [(r.vm_id, r.code, r.rejected_hosts) for r in plan.reasons
                         if r.code in failover.NO_TARGET_CODES]
                if found:
                    fresh[name] = found
            assert predicted == fresh


def _cached(snap, cache, busy=m.BusySet(), app=AppConfig()):
    return failover.analyse_failover(snap, app, b.agg_config(), max_k=2, busy=busy, cache=cache)


def _tight():
    hosts = [_host("a", 6000), _host("b", 6000), _host("c")]
    return hosts, [b.vm("a1", "a", ram_mb=6000), b.vm("b1", "b", ram_mb=6000)]


def test_a_cycle_with_only_new_load_and_heartbeats_reuses_the_analysis():
    hosts, vms = _tight()
    cache = failover.AnalysisCache()
    first = _cached(b.snapshot(hosts, vms), cache)
    later_hosts = [msgspec.structs.replace(h, heartbeat_at=1234.0, metrics=m.HostMetrics(cpu_pct=97.0))
                   for h in hosts]
    later_vms = [msgspec.structs.replace(vm, metrics=m.VMMetrics(cpu_cores=3.0)) for vm in vms]
    again = _cached(b.snapshot(later_hosts, later_vms), cache)
    assert again is first
    assert (cache.misses, cache.hits) == (1, 1)


def test_hosts_and_vms_busy_or_handled_in_another_aggregate_reuse_the_analysis():
    hosts, vms = _tight()
    cache = failover.AnalysisCache()
    first = _cached(b.snapshot(hosts, vms), cache)
    elsewhere = m.BusySet(hosts=frozenset({"x1"}), vms=frozenset({"x1-vm"}))
    assert _cached(b.snapshot(hosts, vms), cache, busy=elsewhere) is first
    assert failover.analyse_failover(b.snapshot(hosts, vms), AppConfig(), b.agg_config(), max_k=2,
                                     handled=frozenset({"x2"}), cache=cache) is first
    assert (cache.misses, cache.hits) == (1, 2)


def test_a_change_an_evacuation_depends_on_plans_again():
    hosts, vms = _tight()
    cache = failover.AnalysisCache()
    assert _cached(b.snapshot(hosts, vms), cache).tolerance == 1
    # a third VM on the spare host: a single failure now leaves a VM behind
    crowded = [hosts[0], hosts[1], _host("c", 6000)]
    assert _cached(b.snapshot(crowded, vms + [b.vm("c1", "c", ram_mb=6000)]), cache).tolerance == 0
    # the spare host busy: the same
    assert _cached(b.snapshot(hosts, vms), cache, busy=m.BusySet(hosts=frozenset({"c"}))).tolerance == 0
    # no change since the first: planned again only because the last inputs differed
    assert _cached(b.snapshot(hosts, vms), cache).tolerance == 1
    assert (cache.misses, cache.hits) == (4, 0)


def _changed(value):
    """A different value of the same kind (for every field type the snapshot's records use)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-x"
    if isinstance(value, tuple):
        return value + ("x",)
    if isinstance(value, dict):
        return dict(value, x="x")
    if value is None:
        return "x"
    return None


def test_every_field_of_a_host_or_vm_a_plan_may_read_changes_the_fingerprint():
    """Only load, heartbeat and report times are left out: a field added later is in by default."""
    hosts, vms = _tight()
    index = b.snapshot(hosts, vms).index()
    base = failover.inputs_fingerprint(index, b.agg_config().name)
    left_out = {(m.Hypervisor, "metrics"), (m.Hypervisor, "heartbeat_at"), (m.VM, "metrics")}
    checked = 0
    for kind, records, rebuild in ((m.Hypervisor, hosts, lambda new: b.snapshot(new, vms)),
                                   (m.VM, vms, lambda new: b.snapshot(hosts, new))):
        for field in kind.__struct_fields__:
            if (kind, field) in left_out or field in ("name", "id", "host"):
                continue
            value = _changed(getattr(records[0], field))
            if value is None:
                continue
            try:
                new = [msgspec.structs.replace(records[0], **{field: value})] + list(records[1:])
                changed = failover.inputs_fingerprint(rebuild(new).index(), b.agg_config().name)
            except (TypeError, msgspec.ValidationError):
                continue
            assert changed != base, "%s.%s is not in the fingerprint" % (kind.__name__, field)
            checked += 1
    assert checked >= 20
