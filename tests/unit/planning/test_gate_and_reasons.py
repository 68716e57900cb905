"""Aggregate gate and the diagnostics reasons: every "nothing happened" has a code."""

import pytest

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.planning import gate
from keyvrm.planning import reasons


def _agg(**kwargs):
    return AggregateConfig(name="a", **kwargs)


@pytest.mark.parametrize("app,agg,code", [
    (AppConfig(enabled=False), _agg(marker="HA", no_op_mode=False), reasons.DISABLED),
    (AppConfig(enabled=True), _agg(marker="", no_op_mode=False), reasons.NO_MARKER),
    (AppConfig(enabled=True), _agg(marker="LB"), reasons.NOOP),
])
def test_gate_stops_with_its_reason(app, agg, code):
    result = gate.aggregate_gate(app, agg)
    assert not (result.run_ha or result.run_lb)
    assert result.reason.code == code


@pytest.mark.parametrize("marker,ha,lb", [("HA", True, False), ("LB", False, True),
                                          ("HA+LB", True, True)])
def test_gate_runs_what_the_marker_says(marker, ha, lb):
    result = gate.aggregate_gate(AppConfig(enabled=True),
                                 _agg(marker=marker, no_op_mode=False, storage_mode="shared"))
    assert (result.run_ha, result.run_lb, result.reason) == (ha, lb, None)


@pytest.mark.parametrize("marker,lb", [("HA", False), ("HA+LB", True)])
def test_ha_does_not_run_until_the_storage_mode_is_declared(marker, lb):
    result = gate.aggregate_gate(AppConfig(enabled=True), _agg(marker=marker, no_op_mode=False))
    assert (result.run_ha, result.run_lb) == (False, lb)
    assert result.reason.code == reasons.STORAGE_UNDECLARED
    assert "storage_mode" in result.reason.message


def test_lb_alone_needs_no_storage_mode():
    result = gate.aggregate_gate(AppConfig(enabled=True), _agg(marker="LB", no_op_mode=False))
    assert (result.run_ha, result.run_lb, result.reason) == (False, True, None)


def test_noop_reason_is_in_the_message():
    result = gate.aggregate_gate(AppConfig(enabled=True),
                                 _agg(marker="HA", no_op_reason="maintenance window"))
    assert "maintenance window" in result.reason.message


def test_no_target_sentence_counts_hosts_per_filter():
    why = reasons.no_target("vm1", {"ServerGroupAntiAffinityFilter": 12, "ram_depleted": 3,
                                    "busy": 1}, vm_id="vm1")
    assert why.message == ("no target for vm1: 12 hosts rejected by "
                           "ServerGroupAntiAffinityFilter, 3 hosts rejected by ram_depleted,"
                           " 1 host rejected by busy")
    assert why.details[0] == ("ServerGroupAntiAffinityFilter", 12)  # hosts rejected per check


def test_error_reasons_mark_the_event_as_error():
    assert reasons.no_fencer().is_error
    assert reasons.mixed_hugepages("a", 1, 2).is_error
    assert reasons.fencing_impossible("h", "why").is_error
    assert not reasons.no_overload("a", 80).is_error
