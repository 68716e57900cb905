"""Failover analysis: which hosts HA could not fully evacuate, and the aggregate's tolerance."""

import msgspec

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import failover
from keyvrm.planning import failure_domains
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


def _racked(hosts, vms, racks, max_k=2, **kwargs):
    """``racks``: {domain: hosts}, each a Nova aggregate carrying ha_failure_domain."""
    extra = tuple(m.Aggregate("rack-" + name, 10 + i, metadata={failure_domains.DOMAIN_KEY: name},
                              hosts=tuple(members)) for i, (name, members) in enumerate(sorted(racks.items())))
    hosts = [msgspec.structs.replace(h, aggregates=h.aggregates + tuple(a.name for a in extra if h.name in a.hosts))
             for h in hosts]
    return failover.analyse_failover(b.snapshot(hosts, vms, extra_aggregates=extra), AppConfig(), b.agg_config(),
                                     max_k=max_k, **kwargs)


def _rack_of_two():
    """Rack A (a, b: 4200 MB each) fails: the spare d takes one VM, c's 3992 MB free are too few for the other."""
    hosts = [_host("a", 4200), _host("b", 4200), _host("c", 4200), _host("d")]
    vms = [b.vm("a1", "a", ram_mb=4200), b.vm("b1", "b", ram_mb=4200), b.vm("c1", "c", ram_mb=4200)]
    return hosts, vms, {"A": ["a", "b"], "B": ["c"], "C": ["d"]}


def test_a_rack_whose_loss_leaves_a_vm_behind_while_every_single_host_passes():
    analysis = _racked(*_rack_of_two(), max_k=1)
    assert (analysis.tolerance, analysis.at_risk, analysis.domains) == (1, (), 3)
    [rack] = analysis.domains_at_risk
    assert (rack.name, rack.hosts, len(rack.vm_ids)) == ("A", ("a", "b"), 1)
    assert rack.without_target[0].code == capacity.RAM_DEPLETED
    # B (c's VM goes to d) and C (d holds no VM) are absorbed
    assert [(d.name, d.without_target) for d in analysis.failure_domains[1:]] == [("B", ()), ("C", ())]
    assert failover.shortfall(analysis, 1) is None  # the warning stays about hosts


def test_domains_are_analysed_whatever_k_and_leave_handled_hosts_out():
    hosts, vms, racks = _rack_of_two()
    assert _racked(hosts, vms, racks, max_k=0).domains_at_risk[0].name == "A"
    analysis = _racked(hosts, vms, racks, handled=frozenset({"b"}))
    assert [(d.name, d.hosts, d.without_target) for d in analysis.failure_domains][0] == ("A", ("a",), ())


def test_a_rack_that_can_fail_and_hosts_without_labels_plan_no_domain():
    hosts = [_host("a", 2048), _host("b", 2048), _host("c"), _host("d")]
    vms = [b.vm("a1", "a", ram_mb=2048), b.vm("b1", "b", ram_mb=2048)]
    racked = _racked(hosts, vms, {"A": ["a", "b"], "B": ["c", "d"]})
    assert (racked.domains, racked.domains_at_risk, racked.domain_error) == (2, (), None)
    assert (_analyse(hosts, vms).failure_domains, _analyse(hosts, vms).domain_error) == ((), None)


def test_a_bad_pattern_analyses_no_domain_and_says_why():
    hosts, vms, _ = _rack_of_two()
    analysis = failover.analyse_failover(b.snapshot(hosts, vms, agg_metadata={
        failure_domains.PATTERN_KEY: "(("}), AppConfig(), b.agg_config())
    assert analysis.domains == 0 and failure_domains.PATTERN_KEY in analysis.domain_error
    assert analysis.tolerance == 1  # the host answer is unaffected


def test_a_new_rack_label_plans_again():
    hosts, vms, _ = _rack_of_two()
    cache = failover.AnalysisCache()
    plain = failover.analyse_failover(b.snapshot(hosts, vms), AppConfig(), b.agg_config(), cache=cache)
    labelled = failover.analyse_failover(b.snapshot(hosts, vms, agg_metadata={
        failure_domains.PATTERN_KEY: "^[ab]$"}), AppConfig(), b.agg_config(), cache=cache)
    assert (plain.domains, cache.hits) == (0, 0)
    assert [(d.name, d.hosts) for d in labelled.failure_domains] == [("a", ("a",)), ("b", ("b",))]


def test_without_domains_asked_no_rack_is_planned():
    analysis = _racked(*_rack_of_two(), with_domains=False)
    assert (analysis.domains, analysis.tolerance) == (0, 1)
