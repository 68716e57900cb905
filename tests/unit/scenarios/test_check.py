"""keyvrm.scenarios.check: a scenario run with KeyVRM acting, its invariants and its expectations."""

import os
import re

import pytest

from keyvrm.db import api as db_api
from keyvrm.scenarios import check
from keyvrm.scenarios import harness as scenario_harness
from keyvrm.scenarios import invariants
from keyvrm.scenarios import scenario
from keyvrm.simulator import compute
from keyvrm.simulator import region as r

REGION = """
name: check-small
seed: 7
region: {service_down_time_s: 60, instance_storage: shared}
topology: {hosts: 8, hosts_per_aggregate: 4, hosts_per_rack: 4,
           host: {vcpus: 32, ram_mb: 131072, reserved_ram_mb: 4096}}
workload: {vms_per_host: 3, server_group_fraction: 0}
"""
DEATH = """
timeline:
  - {at: 1m, fault: host_dies, hosts: [cmp-00001], bmc: "off"}
config:
  app: {enabled: true}
  aggregates:
    agg-001: {marker: HA, no_op_mode: false, storage_mode: shared}
run: {cycles: 5}
"""


def test_a_host_death_run_twice_passes_with_the_same_outcomes():
    text = REGION + DEATH + """
expect:
  recommendations: [{action: evacuate, status: succeeded, source_host: cmp-00001, count: 3}]
  hypervisors: {cmp-00001: {state: maintenance, fenced_by: [nova]}}
"""
    first, second = check.run(scenario.loads(text)), check.run(scenario.loads(text))
    assert first.passed, first.report()
    assert first.digest == second.digest
    assert "cycle 4 completed" in first.timeline and "evacuate" in first.timeline


def test_unmet_expectations_name_their_path_and_what_was_seen():
    text = REGION + DEATH + """
expect:
  events: [{aggregate: agg-001, kind: HA, reason_code: fencing_impossible}]
  hypervisors: {cmp-00001: ok}
  vms_on_host: {cmp-00001: 3}
"""
    result = check.run(scenario.loads(text))
    assert not result.passed
    assert result.problems[0].startswith("events[0] {aggregate: agg-001, kind: HA, reason_code: fencing_impossible}:"
                                         " none found; seen: ")
    assert "recommendations_final" in result.problems[0]
    assert "hypervisors.cmp-00001: maintenance" in result.problems[1]
    assert result.problems[2] == "vms_on_host.cmp-00001: 0 VMs, 3 expected"
    assert "timeline:" in result.report()


def test_a_start_config_the_api_refuses_is_a_scenario_error_naming_field_and_line():
    text = REGION + DEATH.replace("storage_mode: shared}", "storage_mode: shared, lb_period: -5}")
    with pytest.raises(scenario.ScenarioError) as caught:
        check.run(scenario.loads(text, source="bad.yaml"))
    assert caught.value.field == "config.aggregates.agg-001.lb_period"
    assert caught.value.message == ("bad.yaml:14: config.aggregates.agg-001.lb_period: PATCH /v1/aggregates/agg-001 "
                                    "answered 400: lb_period: -5 is less than the minimum of 0")


def test_an_operator_act_needs_its_parameters_and_one_that_matches_nothing_is_a_problem():
    with pytest.raises(scenario.ScenarioError) as caught:
        scenario.loads(REGION + DEATH + "operator:\n  - {at: 2m, action: noop_on, aggregate: agg-001}\n")
    assert caught.value.field == "operator[0].reason"
    text = REGION + DEATH + "operator:\n  - {at: 2m, action: run, recommendation: {status: manual_action}}\n"
    result = check.run(scenario.loads(text))
    assert result.problems == ["operator[0]: run recommendation={'status': 'manual_action'} matched no recommendation"]


def test_an_act_due_after_the_last_cycle_is_a_problem_not_silently_dropped():
    text = REGION + DEATH + "operator:\n  - {at: 3h, action: cycle_now}\n"
    result = check.run(scenario.loads(text))
    assert len(result.problems) == 1 and "never came due" in result.problems[0]


@pytest.fixture
def watched():
    region = scenario.loads(REGION).start()
    h = scenario_harness.Harness(region)
    yield h, invariants.Invariants(h)
    h.close()


def test_an_evacuation_from_a_host_never_fenced_breaks_the_first_invariant(watched):
    h, watch = watched
    vm = h.region.hosts["cmp-00001"].vms[0]
    h.region.migrations[99] = r.Migration(99, vm.id, compute.EVACUATION, "cmp-00001", "cmp-00002",
                                          h.region.now, vm.flavor)
    found = watch.after_cycle()
    assert any("never confirmed fenced" in text for text in found)
    assert any("while that host runs" in text for text in found)
    assert any("with no recommendation" in text for text in found)


def test_a_recommendation_on_a_noop_aggregate_breaks_the_second_invariant(watched):
    h, watch = watched
    db_api.update_app_config(h.db, {"enabled": True}, "test")
    watch.before_cycle()  # agg-001 is still NOOP (every new aggregate is)
    event = db_api.create_event(h.db, "agg-001", "HA", "HA")
    vm = h.region.hosts["cmp-00001"].vms[0]
    db_api.create_recommendation(h.db, event, "evacuate", vm.id, "cmp-00001", "cmp-00002", True, ha_round=1)
    assert [text for text in watch.after_cycle() if "recommended on agg-001" in text] == [
        "evacuate of %s recommended on agg-001 while it was NOOP or the service disabled" % vm.id]


def test_a_vm_placed_over_capacity_or_against_its_anti_affinity_group_is_a_violation(watched):
    h, watch = watched
    host = h.region.hosts["cmp-00002"]
    host.used_vcpus = host.vcpus * host.cpu_allocation_ratio * 2
    assert any(text.startswith("cmp-00002 over capacity") for text in watch.after_cycle())


def test_the_readme_example_scenario_passes():
    readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md"), encoding="utf-8").read()
    text = re.search(r"## Scenarios.*?```yaml\n(.*?)```", readme, re.S).group(1)
    result = check.run(scenario.loads(text))
    assert result.passed, result.report()


def test_an_operator_config_change_needs_its_fields():
    with pytest.raises(scenario.ScenarioError) as caught:
        scenario.loads(REGION + DEATH + "operator:\n  - {at: 2m, action: set_config}\n")
    assert caught.value.field == "operator[0].fields"
