"""syn_score and overload: weighted mean, missing metrics left out, never read as 0."""

import pytest

from keyvrm.model import snapshot as m
from keyvrm.scheduling import scoring
from tests.unit.planning import builders as b

WEIGHTS = {"cpu": 1.0, "ram": 1.0, "net": 0.5, "hugepages": 0.0}


def test_syn_score_is_the_weighted_mean():
    load = scoring.Load(90.0, 60.0, 30.0, 100.0)
    assert scoring.syn_score(load, WEIGHTS) == pytest.approx((90 + 60 + 15) / 2.5)


def test_missing_metric_is_left_out_not_zero():
    assert scoring.syn_score(scoring.Load(90.0, 60.0, None), WEIGHTS) == pytest.approx(75.0)


def test_no_weighted_metric_means_no_score():
    assert scoring.syn_score(scoring.Load(None, None, None, 50.0), WEIGHTS) is None


def test_is_overloaded_is_strictly_above_threshold_and_needs_a_score():
    assert scoring.is_overloaded(80.1, 80)
    assert not scoring.is_overloaded(80.0, 80)
    assert not scoring.is_overloaded(None, 80)


def test_vm_share_estimates_missing_vm_metrics_from_flavor():
    hyper = b.host("h", vcpus=32, ram_mb=65536, net_pct=40.0, net_capacity_mbps=10000)
    share = scoring.vm_share(b.vm("v", "h", vcpus=8, ram_mb=16384), hyper, 4)
    assert share.cpu_pct == pytest.approx(25.0)
    assert share.ram_pct == pytest.approx(25.0)
    assert share.net_pct == pytest.approx(10.0)
    measured = b.vm("v", "h", metrics=m.VMMetrics(cpu_cores=4, ram_mb=8192, net_mbps=1000))
    share = scoring.vm_share(measured, hyper, 4)
    assert (share.cpu_pct, share.ram_pct, share.net_pct) == pytest.approx((12.5, 12.5, 10.0))


def test_shifted_keeps_missing_metrics_missing():
    load = scoring.Load(50.0, None).shifted(scoring.Load(10.0, 10.0), 1)
    assert load.cpu_pct == 60.0 and load.ram_pct is None


def test_rescaled_share_follows_target_capacity():
    small, big = b.host("s", vcpus=16), b.host("b", vcpus=64)
    share = scoring.rescaled(scoring.Load(40.0, 10.0), small, big)
    assert share.cpu_pct == pytest.approx(10.0)


def _busy(vm_id, cores):
    return b.vm(vm_id, "h", metrics=m.VMMetrics(cpu_cores=cores))


def test_a_saturated_host_is_read_by_what_its_vms_ask_for():
    host = b.host("h", vcpus=40, cpu_pct=100.0, ram_pct=50.0)
    load = scoring.demand_load(host, [_busy("a", 26.0), _busy("b", 20.0)])
    assert load.cpu_pct == pytest.approx(115.0) and load.ram_pct == 50.0


def test_below_saturation_or_with_a_vm_unmeasured_the_measured_load_stands():
    vms = [_busy("a", 26.0), _busy("b", 20.0)]
    assert scoring.demand_load(b.host("h", vcpus=40, cpu_pct=90.0), vms).cpu_pct == 90.0
    unmeasured = vms + [b.vm("c", "h")]
    assert scoring.demand_load(b.host("h", vcpus=40, cpu_pct=100.0), unmeasured).cpu_pct == 100.0
    # demand below what was measured never lowers the reading
    assert scoring.demand_load(b.host("h", vcpus=40, cpu_pct=99.0), [_busy("a", 10.0)]).cpu_pct == 99.0
