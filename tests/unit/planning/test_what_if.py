"""What-if planning: HA's own round-1 plan for hosts supposed dead, and the state each would end in."""

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import ha
from keyvrm.planning import reasons
from keyvrm.planning import what_if
from tests.unit.planning import builders as b


def _snapshot():
    hosts = [b.host("a"), b.host("b"), b.host("c", ram_mb=8192)]
    vms = [b.vm("a1", "a"), b.vm("a2", "a", ram_mb=200000), b.vm("b1", "b"), b.vm("b2", "b", no_evac=True)]
    return b.snapshot(hosts, vms)


def test_the_plan_is_ha_plan_evacuation_for_the_failed_hosts():
    snap, app, agg = _snapshot(), AppConfig(), b.agg_config(storage_mode="shared")
    found = what_if.plan_failure(snap, app, agg, m.BusySet(), ["a"], {})
    assert found.plan == ha.plan_evacuation(snap, app, agg, m.BusySet(), ["a"])
    assert found.plan.target_of("a1") == "b"


def test_a_host_ends_in_maintenance_only_when_every_vm_on_it_moves():
    snap = b.snapshot([b.host(h) for h in "abcd"], [b.vm("a1", "a"), b.vm("b2", "b", no_evac=True)])
    found = what_if.plan_failure(snap, AppConfig(), b.agg_config(storage_mode="shared"), m.BusySet(), ["a", "b"], {})
    assert [(h.host, h.vm_ids, h.end_state) for h in found.hosts] == [
        ("a", ("a1",), "maintenance"), ("b", ("b2",), "error")]
    unplaceable = what_if.plan_failure(_snapshot(), AppConfig(), b.agg_config(storage_mode="shared"), m.BusySet(),
                                       ["a"], {})
    assert unplaceable.hosts[0].end_state == "error"


def test_past_the_mass_failure_guard_no_host_is_fenced_and_each_stays_ok():
    found = what_if.plan_failure(_snapshot(), AppConfig(), b.agg_config(storage_mode="shared"), m.BusySet(),
                                 ["a", "b"], {})  # 2 of 3 hosts: more than half
    assert found.plan.moves == () and [r.code for r in found.plan.reasons] == [reasons.MASS_FAILURE_GUARD]
    assert [(h.fenced, h.end_state) for h in found.hosts] == [(False, "ok"), (False, "ok")]


def test_a_handled_host_keeps_its_state_and_is_not_planned():
    found = what_if.plan_failure(_snapshot(), AppConfig(), b.agg_config(storage_mode="shared"), m.BusySet(),
                                 ["a", "b"], {"a": "error"})
    first, second = found.hosts
    assert (first.handled_state, first.end_state) == ("error", "error")
    assert {mv.source for mv in found.plan.moves} == {"b"}
    assert found.plan.reasons[0].code == reasons.ALREADY_HANDLED and found.plan.reasons[0].host == "a"
    assert second.handled_state is None
