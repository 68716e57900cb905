"""Failback planning: the VMs KeyVRM moved off a host go back when the host would take them, others say why not."""

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import failback
from keyvrm.planning import lb
from keyvrm.planning import reasons
from tests.unit.planning import builders as b


def _vm(vm_id, host, ram_mb=8192, **kwargs):
    kwargs.setdefault("status", "ACTIVE")
    return b.vm(vm_id, host, vcpus=2, ram_mb=ram_mb, metrics=m.VMMetrics(cpu_cores=1.0, ram_mb=ram_mb), **kwargs)


def _hosts(home_cpu_pct=5.0, home_used_ram_mb=0):
    return [b.host("home", used_ram_mb=home_used_ram_mb, cpu_pct=home_cpu_pct, ram_pct=5.0),
            b.host("a", used_vcpus=8, used_ram_mb=32768, cpu_pct=40.0, ram_pct=40.0),
            b.host("b", used_vcpus=8, used_ram_mb=32768, cpu_pct=40.0, ram_pct=40.0)]


def test_vms_keyvrm_moved_go_back_where_still_there_others_are_skipped_with_why():
    vms = [_vm("back", "a"), _vm("moved-on", "b"), _vm("home-already", "home")]
    moved_to = {"back": "a", "moved-on": "a", "home-already": "b", "gone": "a"}
    plan = failback.plan_failback(b.snapshot(_hosts(), vms), AppConfig(), b.agg_config(), "home", moved_to)
    assert [(mv.vm_id, mv.source, mv.target, mv.action) for mv in plan.moves] == [
        ("back", "a", "home", lb.LIVE_MIGRATE)]
    skipped = {r.vm_id: r.message for r in plan.reasons if r.code == reasons.FAILBACK_SKIPPED}
    assert set(skipped) == {"moved-on", "home-already", "gone"}
    assert "deleted" in skipped["gone"] and "moved from a to b" in skipped["moved-on"]
    assert plan.reasons[0].code == reasons.FAILBACK and "1 VM(s)" in plan.reasons[0].message


def test_a_group_that_no_longer_allows_the_host_keeps_the_vm_where_it_is():
    group = m.ServerGroup("g", "web", m.ANTI_AFFINITY, members=("web-1", "web-2"))
    vms = [_vm("web-1", "a", server_group_id="g"), _vm("web-2", "home", server_group_id="g")]
    plan = failback.plan_failback(b.snapshot(_hosts(), vms, [group]), AppConfig(), b.agg_config(), "home",
                                  {"web-1": "a"})
    assert plan.moves == ()
    (stuck,) = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert stuck.vm_id == "web-1" and stuck.rejected_hosts[0][:2] == ("home", "ServerGroupAntiAffinityFilter")


def test_failback_stops_where_the_host_would_pass_lbs_target_limit():
    vms = [_vm("v%d" % i, "a", 4096) for i in range(3)]
    plan = failback.plan_failback(b.snapshot(_hosts(home_cpu_pct=69.0), vms), AppConfig(), b.agg_config(), "home",
                                  {vm.id: "a" for vm in vms})
    # each VM adds 1 core of 32 (3.1 points): 69 -> 72.1 -> 75.2 would pass the cpu ceiling less the hysteresis (75)
    assert len(plan.moves) == 1
    assert [r.rejected_hosts[0][1] for r in plan.reasons if r.code == reasons.NO_TARGET] == ["lb_ceilings.cpu"] * 2
