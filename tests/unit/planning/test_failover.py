"""Failover analysis: which hosts HA could not fully evacuate, and the aggregate's tolerance."""

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
