"""Drain planning: every VM of the drained host to the least loaded host LB would accept, or why it stays."""

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import drain
from keyvrm.planning import lb
from keyvrm.planning import reasons
from tests.unit.planning import builders as b


def _vm(vm_id, host, ram_mb=8192, **kwargs):
    kwargs.setdefault("status", "ACTIVE")
    return b.vm(vm_id, host, vcpus=2, ram_mb=ram_mb, metrics=m.VMMetrics(cpu_cores=1.0, ram_mb=ram_mb), **kwargs)


def _hosts(**free_ram_mb):
    return [b.host("src", used_vcpus=8, used_ram_mb=32768, cpu_pct=30.0, ram_pct=30.0)] + [
        b.host(name, used_ram_mb=131072 - free, cpu_pct=cpu, ram_pct=30.0)
        for name, (free, cpu) in free_ram_mb.items()]


def test_every_vm_goes_to_the_least_loaded_host_that_takes_it_and_no_migr_vms_stay():
    snap = b.snapshot(_hosts(busy=(65536, 60.0), quiet=(65536, 10.0)),
                      [_vm("big", "src", 16384), _vm("small", "src", 4096), _vm("pinned", "src", no_migr=True)])
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src")
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("big", "quiet"), ("small", "quiet")]
    assert all(mv.action == lb.LIVE_MIGRATE and mv.source == "src" for mv in plan.moves)
    assert [r.code for r in plan.reasons] == [reasons.DRAIN, reasons.EXCLUDED_BY_METADATA]
    assert plan.reasons[1].vm_id == "pinned" and "1 stay" in plan.reasons[0].message


def test_a_vm_no_host_takes_stays_with_each_hosts_rejection_and_nothing_overfills():
    snap = b.snapshot(_hosts(little=(6144, 10.0)), [_vm("a", "src", 4096), _vm("b", "src", 4096)])
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src")
    assert [(mv.vm_id, mv.target) for mv in plan.moves] == [("a", "little")]  # 6 GB free: one of them
    (stuck,) = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert stuck.vm_id == "b" and [(host, check) for host, check, _ in stuck.rejected_hosts] == [
        ("little", "ram_depleted")]


def test_busy_and_shut_off_vms_stay_and_the_target_limit_holds():
    hosts = _hosts(hot=(65536, 73.0))
    vms = [_vm("running", "src"), _vm("off", "src", status="SHUTOFF"), _vm("moving", "src")]
    plan = drain.plan_drain(b.snapshot(hosts, vms), AppConfig(), b.agg_config(), "src",
                            m.BusySet(vms=frozenset({"moving"})))
    assert plan.moves == ()  # hot would end at 76% CPU, above the cpu ceiling less the hysteresis (75)
    codes = {r.vm_id: r.code for r in plan.reasons if r.vm_id}
    assert codes == {"running": reasons.NO_TARGET, "off": reasons.NOT_MIGRATABLE, "moving": reasons.BUSY}
    (stuck,) = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert stuck.rejected_hosts == (("hot", "lb_ceilings.cpu", 1),)


def test_without_allow_cold_a_stopped_vm_stays_named_with_what_allow_cold_would_do():
    snap = b.snapshot(_hosts(quiet=(65536, 10.0)), [_vm("off", "src", status="SHUTOFF")])
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src")
    assert plan.moves == ()
    (stays,) = [r for r in plan.reasons if r.vm_id == "off"]
    assert (stays.code, stays.message) == (reasons.NOT_MIGRATABLE, "VM off is SHUTOFF: Nova refuses to live-migrate"
                                           " it (a drain with allow_cold would cold-migrate it)")


def test_with_allow_cold_a_stopped_vm_is_cold_migrated_to_the_target_a_live_one_would_get():
    snap = b.snapshot(_hosts(busy=(65536, 60.0), quiet=(65536, 10.0)),
                      [_vm("running", "src"), _vm("off", "src", 16384, status="SHUTOFF"),
                       _vm("pinned", "src", status="SHUTOFF", no_migr=True),
                       _vm("suspended", "src", status="SUSPENDED"), _vm("stopping", "src", task_state="powering-off")])
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src", allow_cold=True)
    assert [(mv.vm_id, mv.action, mv.target) for mv in plan.moves] == [
        ("off", drain.COLD_MIGRATE, "quiet"), ("running", drain.LIVE_MIGRATE, "quiet")]
    assert {r.vm_id: r.code for r in plan.reasons if r.vm_id} == {
        "pinned": reasons.EXCLUDED_BY_METADATA, "suspended": reasons.NOT_MIGRATABLE,
        "stopping": reasons.NOT_MIGRATABLE}
    assert plan.reasons[0].message == ("drain of src: 1 VM(s) to live-migrate, 1 to cold-migrate (cold migration"
                                       " allowed), 3 stay (see their reasons)")
    assert dict(plan.reasons[0].details) == {"moving": 2, "staying": 3, "cold": 1, "allow_cold": True}


def test_a_cold_round_moves_the_vms_whose_live_migration_failed_even_to_the_host_it_failed_to():
    snap = b.snapshot(_hosts(quiet=(65536, 10.0)),
                      [_vm("failed", "src"), _vm("paused", "src", status="PAUSED"), _vm("other", "src")])
    failed = frozenset({"failed", "paused"})
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src", allow_cold=True, live_failed=failed,
                            only=failed, recent_failures={("failed", "quiet"): 100.0}, now_s=200.0)
    assert [(mv.vm_id, mv.action, mv.target) for mv in plan.moves] == [("failed", drain.COLD_MIGRATE, "quiet")]
    (paused,) = [r for r in plan.reasons if r.vm_id == "paused"]
    assert paused.message == "VM paused is PAUSED: its live migration failed and Nova refuses to cold-migrate it"
    assert not any(r.vm_id == "other" for r in plan.reasons)  # not in this round


def test_a_cold_migration_that_just_failed_to_a_host_is_not_sent_there_again():
    snap = b.snapshot(_hosts(quiet=(65536, 10.0)), [_vm("off", "src", status="SHUTOFF")])
    plan = drain.plan_drain(snap, AppConfig(), b.agg_config(), "src", allow_cold=True,
                            recent_cold_failures={("off", "quiet"): 100.0}, now_s=200.0)
    assert plan.moves == ()
    (stuck,) = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert stuck.rejected_hosts == (("quiet", lb.RECENT_FAILURE, 1),)
