"""Scenario files: validation naming the field, shipped scenarios, inventories."""

import json
import os

import pytest

from keyvrm.scenarios import scenario
from keyvrm.simulator.drivers.metrics import SimMetricsDriver
from keyvrm.simulator import generator
from keyvrm.simulator import inventory
from keyvrm.simulator import region as r

SCENARIOS = scenario.SHIPPED_DIR

BASE = """\
name: t
topology:
  hosts: 4
  hosts_per_aggregate: 2
timeline:
  - at: 1m
    fault: host_dies
    hosts: [cmp-00001]
"""


def _error(text):
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.loads(text, source="t.yaml").start()
    return err.value


def test_unknown_fault_kind_names_its_field_and_line():
    err = _error(BASE.replace("host_dies", "host_explodes"))
    assert err.field == "timeline[0].fault"
    assert err.line == 7
    assert str(err).startswith("t.yaml:7: timeline[0].fault:")


def test_unknown_host_names_the_list_item():
    err = _error(BASE.replace("cmp-00001", "cmp-09999"))
    assert err.field == "timeline[0].hosts[0]"
    assert "unknown host 'cmp-09999'" in str(err)


def test_misspelt_top_level_key_is_refused_by_name():
    err = _error(BASE.replace("topology:", "topolgy:"))
    assert err.field == "topolgy" and "unknown field" in str(err)


def test_bad_duration_and_foreign_parameter_are_refused():
    assert _error(BASE.replace("at: 1m", "at: soon")).field == "timeline[0].at"
    err = _error(BASE + "    cpu_factor: 2\n")
    assert err.field == "timeline[0].cpu_factor" and "not a parameter of host_dies" in str(err)


def test_bad_value_inside_topology_names_the_nested_field():
    err = _error(BASE.replace("hosts: 4", "hosts: -4"))
    assert err.field == "topology.hosts" and err.line == 3


def test_topology_and_inventory_together_are_refused():
    err = _error(BASE + "inventory: {hosts: []}\n")
    assert err.field == "inventory"


def test_demo_scenario_runs_an_hour_with_a_dead_and_an_overloaded_host():
    scen = scenario.load(os.path.join(SCENARIOS, "demo-small.yaml"))
    region, summary = scen.run()
    assert summary["elapsed_s"] == 3600
    assert summary["hosts_by_state"] == {"off": 1, "up": 19}
    assert summary["services"]["down"] == 1
    assert summary["expectations_failed"] == []
    metrics = SimMetricsDriver(region).host_metrics()
    assert metrics["cmp-00003"].cpu_pct is None  # dead: missing, not zero
    hot = metrics["cmp-00014"].cpu_pct
    others = [m.cpu_pct for h, m in metrics.items() if h not in ("cmp-00003", "cmp-00014")]
    assert hot > 80 and hot > 1.5 * max(others)


@pytest.mark.parametrize("name", ["demo-small", "region-1k", "rack-failure", "noisy-lb"])
def test_shipped_scenarios_meet_their_expectations(name):
    _, summary = scenario.load(os.path.join(SCENARIOS, f"{name}.yaml")).run()
    assert summary["expectations_failed"] == []


def test_generated_inventory_loads_back_into_the_same_region(tmp_path):
    region = generator.generate({"hosts": 30, "hugepages_aggregates": 1},
                                {"vms_per_host": 6}, r.RegionOptions(seed=3))
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(inventory.dump(region)))
    loaded = inventory.load(scenario.load_inventory_file(str(path)))
    assert inventory.dump(loaded) == inventory.dump(region)
    assert {h: len(x.vms) for h, x in loaded.hosts.items()} == \
        {h: len(x.vms) for h, x in region.hosts.items()}


def test_inventory_with_unknown_flavor_names_the_vm(tmp_path):
    doc = {"hosts": [{"name": "h1"}], "flavors": [], "vms": [
        {"id": "v1", "host": "h1", "flavor": "nope"}]}
    path = tmp_path / "inv.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.load_inventory_file(str(path))
    assert err.value.field == "vms[0].flavor"


def test_generator_respects_server_group_policies_and_capacity():
    region = generator.generate({"hosts": 40}, {"vms_per_host": 30,
                                                "server_group_fraction": 0.3})
    for group in region.server_groups.values():
        hosts = [region.vms[v].host for v in group.members]
        if group.policy == "anti-affinity":
            assert len(set(hosts)) == len(hosts)
        elif group.policy == "affinity":
            assert len(set(hosts)) == 1
    for host in region.hosts.values():
        assert host.used_vcpus <= host.vcpu_capacity
        assert host.used_ram_mb <= host.ram_capacity_mb


def test_unquoted_yaml_off_is_explained():
    err = _error(BASE + "    bmc: off\n")
    assert err.field == "timeline[0].bmc" and "quote it" in str(err)
    err = _error(BASE + "expectations:\n  hosts_by_state: {off: 1}\n")
    assert err.field == "expectations.hosts_by_state" and "quote it" in str(err)


def test_expectation_with_unknown_host_state_is_refused():
    err = _error(BASE + "expectations:\n  hosts_by_state: {dead: 1}\n")
    assert err.field == "expectations.hosts_by_state"


def test_the_demo_scenarios_ship_inside_the_package_not_the_source_tree():
    from keyvrm.cmd import demo
    package = os.path.dirname(os.path.abspath(scenario.__file__))
    assert os.path.abspath(demo.DEFAULT_SCENARIO).startswith(package + os.sep)
    assert scenario.load(demo.DEFAULT_SCENARIO).name == "demo-embedded"
