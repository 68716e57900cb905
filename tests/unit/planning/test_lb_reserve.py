"""LB keeps the failover reserve: no move after which a host failure leaves a VM without a target."""

import dataclasses

import pytest

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import failover
from keyvrm.planning import lb
from keyvrm.planning import reserve
from tests.unit.planning import builders as b
from tests.unit.planning import regiongen

WEIGHTS = {"cpu": 1.0, "ram": 1.0, "net": 0.0, "hugepages": 0.0}
GB = 1024


def _measured(vm_id, host, cores, ram_mb):
    return b.vm(vm_id, host, vcpus=int(cores), ram_mb=ram_mb, metrics=m.VMMetrics(cpu_cores=cores, ram_mb=ram_mb))


def _tight_region(spare_gb=16):
    """hot (90% CPU) carries two 6 GB VMs; c2's 12 GB VM fits only on c1 (``spare_gb`` free) if c2 dies."""
    hosts = [b.host("hot", vcpus=40, ram_mb=16 * GB, used_vcpus=18, used_ram_mb=12 * GB, cpu_pct=90.0, ram_pct=75.0),
             b.host("c1", vcpus=40, ram_mb=spare_gb * GB, cpu_pct=20.0, ram_pct=5.0),
             b.host("c2", vcpus=40, ram_mb=16 * GB, used_vcpus=4, used_ram_mb=12 * GB, cpu_pct=30.0, ram_pct=75.0)]
    vms = [_measured("v0", "hot", 9, 6 * GB), _measured("v1", "hot", 9, 6 * GB), _measured("w", "c2", 4, 12 * GB)]
    return b.snapshot(hosts, vms)


def _plan(snap, reserve_hosts, **config):
    agg = b.agg_config(lb_weights=WEIGHTS, storage_mode="shared", ha_failover_reserve=reserve_hosts, **config)
    return lb.plan_balancing(snap, AppConfig(enabled=True), agg, m.BusySet())


def test_a_move_that_would_leave_a_failed_hosts_vm_without_target_is_refused_as_failover_reserve():
    snap = _tight_region()
    assert failover.analyse_failover(snap, AppConfig(), b.agg_config(storage_mode="shared")).tolerance >= 1
    kept = _plan(snap, 1)
    assert kept.moves == ()
    [no_target] = [r for r in kept.reasons if r.code == "no_target"]
    assert dict(no_target.details)[reserve.FAILOVER_RESERVE] >= 1
    assert ("c1", reserve.FAILOVER_RESERVE, 2) in no_target.rejected_hosts
    spent = _plan(snap, 0)
    assert [(mv.vm_id, mv.target) for mv in spent.moves][:1] in ([("v0", "c1")], [("v1", "c1")])


def test_a_reserve_with_room_to_spare_changes_no_move():
    snap = _tight_region(spare_gb=32)
    assert _plan(snap, 1).moves == _plan(snap, 0).moves != ()


def test_an_aggregate_ha_does_not_run_on_keeps_no_reserve():
    snap = _tight_region()
    assert _plan(snap, 1, marker="LB").moves
    agg = b.agg_config(lb_weights=WEIGHTS, ha_failover_reserve=1)  # HA+LB without a storage mode: LB only
    assert lb.plan_balancing(snap, AppConfig(enabled=True), agg, m.BusySet()).moves


def _left_behind_per_host(snap, app, agg):
    analysis = failover.analyse_failover(snap, app, agg, max_k=1)
    return {risk.hosts[0]: len(risk.without_target) for risk in analysis.at_risk}


def _host_failures_made_worse(snap, app, reserve_hosts):
    """Hosts whose failure the aggregate's LB plan makes leave more VMs behind, and the plan's moves."""
    agg = dataclasses.replace(b.agg_config(storage_mode="shared", ha_failover_reserve=reserve_hosts),
                              name=snap.aggregates[0].name)
    plan = lb.plan_balancing(snap, app, agg, m.BusySet())
    before = _left_behind_per_host(snap, app, agg)
    after = _left_behind_per_host(regiongen.moved_region(snap, plan.moves, regiongen.loads_after(plan.moves)),
                                  app, agg)
    return sorted(host for host, left in after.items() if left > before.get(host, 0)), plan.moves


@pytest.mark.parametrize("seed", [1, 5, 6])
def test_no_host_failure_leaves_more_vms_behind_after_lb_on_a_full_cpu_hot_aggregate(seed):
    """At 95% allocated, LB without the reserve makes some host's failure worse; with it none."""
    snap = regiongen.generate_region(dataclasses.replace(regiongen.cpu_hot_shape(24, 24), fill=(0.95, 0.99)), seed)
    app = AppConfig(enabled=True)
    worse_without, _ = _host_failures_made_worse(snap, app, 0)
    worse_with, moves = _host_failures_made_worse(snap, app, 1)
    assert worse_without and moves
    assert worse_with == []
