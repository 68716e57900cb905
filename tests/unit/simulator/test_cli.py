"""keyvrm-sim: run prints the final state, generate writes a loadable inventory."""

import io
import json
import os

from keyvrm.cmd import sim
from tests.unit.scenarios.test_scenario import SCENARIOS


def test_run_json_prints_one_document_with_the_final_state():
    out = io.StringIO()
    rc = sim.main(["run", os.path.join(SCENARIOS, "demo-small.yaml"), "--until", "30m",
                   "--json"], out=out)
    assert rc == 0
    doc = json.loads(out.getvalue())
    assert doc["elapsed_s"] == 1800
    assert doc["hosts_by_state"] == {"off": 1, "up": 19}
    assert doc["vms_by_host_state"]["off"] == 8
    assert doc["migrations_by_status"] == {}
    assert [f["kind"] for f in doc["faults_fired"]] == ["host_dies", "overload"]


def test_run_table_reports_unmet_expectations_with_exit_status_1():
    out = io.StringIO()
    rc = sim.main(["run", os.path.join(SCENARIOS, "demo-small.yaml"), "--until", "1m"],
                  out=out)
    assert rc == 1  # the host has not died yet
    assert "UNMET: hosts_by_state.off: expected 1, got 0" in out.getvalue()


def test_generated_inventory_runs_in_a_scenario(tmp_path):
    inv = tmp_path / "inv.yaml"
    assert sim.main(["generate", "--hosts", "12", "--vms-per-host", "3", "--seed", "5",
                     "-o", str(inv)], out=io.StringIO()) == 0
    scen = tmp_path / "s.yaml"
    scen.write_text("name: gen\ninventory: {file: inv.yaml}\ntimeline:\n"
                    "  - {at: 1m, fault: host_dies, hosts: [cmp-00002]}\n"
                    "expectations: {hosts_by_state: {'off': 1, up: 11}, services_down: 1}\n")
    out = io.StringIO()
    assert sim.main(["run", str(scen), "--until", "10m", "--json"], out=out) == 0
    assert json.loads(out.getvalue())["vms"] == 36


def test_bad_scenario_exits_2(tmp_path, capsys):
    scen = tmp_path / "bad.yaml"
    scen.write_text("name: bad\ntimeline:\n  - {at: 1m, fault: nope}\n")
    assert sim.main(["run", str(scen)], out=io.StringIO()) == 2
    assert "timeline[0].fault" in capsys.readouterr().err
