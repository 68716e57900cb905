"""The real `openstack keyvrm ...` commands (python-openstackclient + our plugin) against a served API.

Auth plugin ``none`` with ``--os-endpoint`` reaches a noauth keyvrm-api, as in the
embedded default. Each command is a separate process, exactly as an operator runs it.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

from keyvrm.api import serve
from keyvrm.db import api as db_api
from tests.unit.api import seed

OPENSTACK = os.path.join(os.path.dirname(sys.executable), "openstack")


@pytest.fixture
def seeded_db(sqlite_db):
    seed.seed(sqlite_db)
    return sqlite_db


@pytest.fixture
def served(seeded_db):
    server = serve.serve_in_thread(seed.make_app(seeded_db), "127.0.0.1", 0)
    yield server
    server.shutdown()


def _openstack(server, *args):
    """``openstack [global options] keyvrm <command>``: leading ``--os-*`` arguments are global options."""
    options = []
    while args and args[0].startswith("--os-"):
        options, args = options + list(args[:2]), args[2:]
    command = [OPENSTACK, "--os-auth-type", "none", "--os-endpoint", server.url, *options, "keyvrm", *args]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def test_aggregate_list_as_json(served):
    result = _openstack(served, "aggregate", "list", "-f", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == ["agg-a", "agg-b", "agg-c"]
    assert rows[0]["marker"] == "HA" and rows[1]["no_op_mode"] is True


def test_aggregate_set_noop_without_reason_fails_naming_the_field(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-a", "--noop")
    assert result.returncode != 0
    assert "no_op_reason" in result.stderr
    assert db_api.get_aggregate_config(seeded_db, "agg-a").no_op_mode is False


def test_aggregate_set_with_lb_options_shows_the_new_config_as_yaml(served):
    result = _openstack(served, "aggregate", "set", "agg-b", "--marker", "HA+LB", "--no-noop",
                        "--lb-overload-threshold", "90", "--lb-weight", "net=0", "--lb-ceiling", "cpu=90",
                        "--lb-ceiling", "net=none", "-f", "yaml")
    assert result.returncode == 0, result.stderr
    shown = yaml.safe_load(result.stdout)
    assert shown["marker"] == "HA+LB" and shown["no_op_mode"] is False
    assert shown["lb_overload_threshold"] == 90.0 and shown["lb_weights"]["net"] == 0.0
    assert shown["lb_ceilings"] == {"cpu": 90.0, "ram": 95.0, "net": None, "hugepages": None}


def test_aggregate_set_lb_level_writes_its_thresholds_and_a_later_change_shows_as_overridden(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-b", "--lb-level", "4", "-f", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert (shown["lb_level"], shown["lb_overload_threshold"], shown["lb_target_max_load"]) == (4, 70.0, 60.0)
    assert shown["lb_level_overridden"] == []
    result = _openstack(served, "aggregate", "set", "agg-b", "--lb-overload-threshold", "75", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["lb_level_overridden"] == ["lb_overload_threshold"]
    listed = _openstack(served, "aggregate", "list", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    assert [(r["name"], r["lb_level"]) for r in json.loads(listed.stdout)] == [
        ("agg-a", "3"), ("agg-b", "4*"), ("agg-c", "3")]
    shown = _openstack(served, "aggregate", "show", "agg-b", "-f", "json")
    assert json.loads(shown.stdout)["lb_level_overridden"] == ["lb_overload_threshold"]


def test_aggregate_set_lb_level_out_of_range_fails_naming_the_field_and_changes_nothing(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-b", "--lb-level", "6")
    assert result.returncode != 0 and "lb_level" in result.stderr
    assert db_api.get_aggregate_config(seeded_db, "agg-b").lb_level == 3


def test_at_api_1_5_the_list_has_no_lb_level_column_and_set_lb_level_says_it_needs_1_6(served, seeded_db):
    listed = _openstack(served, "--os-keyvrm-api-version", "1.5", "aggregate", "list", "-f", "json")
    assert listed.returncode == 0, listed.stderr
    assert all("lb_level" not in row for row in json.loads(listed.stdout))
    result = _openstack(served, "--os-keyvrm-api-version", "1.5", "aggregate", "set", "agg-b", "--lb-level", "4")
    assert result.returncode != 0 and "lb_level needs microversion 1.6" in result.stderr
    assert db_api.get_aggregate_config(seeded_db, "agg-b").lb_level == 3


def test_aggregate_set_lb_persistence_and_min_gain_are_stored_and_shown(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-b", "--lb-persistence", "3", "--lb-min-gain", "5",
                        "-f", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert (shown["lb_persistence"], shown["lb_min_gain"]) == (3, 5.0)
    config = db_api.get_aggregate_config(seeded_db, "agg-b")
    assert (config.lb_persistence, config.lb_min_gain) == (3, 5.0)


def test_aggregate_set_lb_persistence_out_of_range_or_below_1_7_changes_nothing(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-b", "--lb-persistence", "0", "--lb-min-gain", "5")
    assert result.returncode != 0 and "lb_persistence" in result.stderr
    result = _openstack(served, "--os-keyvrm-api-version", "1.6", "aggregate", "set", "agg-b",
                        "--lb-min-gain", "5")
    assert result.returncode != 0 and "lb_min_gain needs microversion 1.7" in result.stderr
    config = db_api.get_aggregate_config(seeded_db, "agg-b")
    assert (config.lb_persistence, config.lb_min_gain) == (1, 2.0)


def test_config_set_then_value_output(served, seeded_db):
    result = _openstack(served, "config", "set", "--period", "45", "--nova-filters", "ComputeFilter",
                        "-f", "value", "-c", "period")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "45"
    assert db_api.get_app_config(seeded_db).nova_filters == ("ComputeFilter",)


def test_recommendation_run_is_accepted_and_recorded(served, seeded_db):
    result = _openstack(served, "recommendation", "run", "rec-manual", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "created"
    assert db_api.get_recommendation(seeded_db, "rec-manual")["status"] == "created"


def test_event_list_table_and_cycle_run(served, seeded_db):
    table = _openstack(served, "event", "list", "--aggregate", "agg-a")
    assert table.returncode == 0, table.stderr
    assert "ev-1" in table.stdout and "ev-3" in table.stdout and "ev-2" not in table.stdout
    run = _openstack(served, "cycle", "run", "-f", "json")
    assert run.returncode == 0, run.stderr
    assert [c["status"] for c in db_api.page_cycles(seeded_db, 1)] == ["requested"]


def test_aggregate_set_before_the_first_cycle_says_aggregates_come_from_it_and_cycle_run_asks_for_one(sqlite_db):
    server = serve.serve_in_thread(seed.make_app(sqlite_db), "127.0.0.1", 0)  # a new deployment: no cycle yet
    try:
        enabled = _openstack(server, "config", "set", "--enabled", "true")
        refused = _openstack(server, "aggregate", "set", "agg-1", "--marker", "HA")
        run = _openstack(server, "cycle", "run", "-f", "json")
    finally:
        server.shutdown()
    assert enabled.returncode == 0, enabled.stderr
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "aggregate 'agg-1' is not known to KeyVRM yet: it learns the aggregates from Nova at its first cycle, " \
           "and none has run; run one now (openstack keyvrm cycle run, POST /v1/cycles)" in refused.stderr
    assert run.returncode == 0, run.stderr
    assert [c["status"] for c in db_api.page_cycles(sqlite_db, 1)] == ["requested"]


def test_cycle_show_lists_the_aggregates_runs_that_had_nothing_to_do(served, seeded_db):
    cycle_id = min(c["id"] for c in db_api.page_cycles(seeded_db, 10))
    result = _openstack(served, "cycle", "show", str(cycle_id), "-f", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["event_count"] == 3
    assert [(o["aggregate_name"], o["kind"], o["reason_code"]) for o in shown["outcomes"]] == [
        ("agg-c", "LB", "lb_too_early"), ("agg-c", "NOOP", "no_marker")]


def test_aggregate_show_says_its_own_latest_outcome(served):
    result = _openstack(served, "aggregate", "show", "agg-c")
    assert result.returncode == 0, result.stderr
    assert "LB: lb_too_early" in result.stdout and "NOOP: no_marker" in result.stdout
    assert "agg-b" not in result.stdout


def test_operation_list_as_value_lines(served):
    result = _openstack(served, "operation", "list", "rec-done", "-f", "value", "-c", "kind")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["start", "execute", "success"]


def test_aggregate_set_storage_mode_shared_then_none(served, seeded_db):
    result = _openstack(served, "aggregate", "set", "agg-a", "--storage-mode", "shared", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["storage_mode"] == "shared"
    result = _openstack(served, "aggregate", "set", "agg-a", "--storage-mode", "none", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert db_api.get_aggregate_config(seeded_db, "agg-a").storage_mode is None


def test_hypervisor_list_show_and_restore(served, seeded_db):
    result = _openstack(served, "hypervisor", "list", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert [(r["host"], r["state"]) for r in json.loads(result.stdout)] == [("cmp-1", "fenced"), ("cmp-2", "ok")]
    result = _openstack(served, "hypervisor", "restore", "cmp-1", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["state"] == "restoring"
    again = _openstack(served, "hypervisor", "restore", "cmp-1")
    assert again.returncode != 0 and "is restoring" in again.stderr
    assert db_api.get_hypervisor_state(seeded_db, "cmp-1")["state"] == "restoring"


def test_hypervisor_show_puts_keyvrms_fencing_record_beside_novas_view_with_one_time_format(served):
    result = _openstack(served, "hypervisor", "show", "cmp-1")  # the table an operator reads
    assert result.returncode == 0, result.stderr
    fields = [line.split("|")[1].strip() for line in result.stdout.splitlines() if line.startswith("| ")][1:]
    assert fields[:9] == ["host", "state", "state_since", "reason", "event_id", "fenced_at", "fencing", "service",
                          "seen_at"]
    assert "| fencing           | bmc_power_off confirmed 2025-12-01T10:00:00Z-2025-12-01T10:00:03Z: power off" \
        in result.stdout
    shown = json.loads(_openstack(served, "hypervisor", "show", "cmp-1", "-f", "json").stdout)
    assert shown["fencing"] == [{"fencer": "ipmi", "method": "bmc_power_off", "outcome": "confirmed",
                                 "confirmed": True, "message": "power off", "started_at": "2025-12-01T10:00:00Z",
                                 "finished_at": "2025-12-01T10:00:03Z"}]
    assert shown["availability_zone"] == "az1" and shown["fenced_at"].endswith("Z")
    nova_view = json.loads(_openstack(served, "hypervisor", "show", "cmp-2", "-f", "json").stdout)["service"]
    assert nova_view == {"state": "up", "status": "enabled", "forced_down": False, "disabled_reason": None,
                         "seen_at": "2025-12-01T10:00:00Z"}
    old = _openstack(served, "--os-keyvrm-api-version", "1.10", "hypervisor", "show", "cmp-1", "-c", "fencing")
    assert old.returncode == 0, old.stderr
    assert "ipmi confirmed 1764583200.0-1764583203.0: power off" in old.stdout


def test_hypervisor_drain_needs_a_reason_and_api_1_8_and_drains_an_ok_host(served, seeded_db):
    without = _openstack(served, "hypervisor", "drain", "cmp-2")
    assert without.returncode != 0 and "--reason" in without.stderr
    old = _openstack(served, "--os-keyvrm-api-version", "1.7", "hypervisor", "drain", "cmp-2", "--reason", "CHG-1")
    assert old.returncode != 0 and "drain needs microversion 1.8" in old.stderr
    assert db_api.get_hypervisor_state(seeded_db, "cmp-2")["state"] == "ok"
    result = _openstack(served, "hypervisor", "drain", "cmp-2", "--reason", "CHG-1 new DIMMs", "-f", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["state"] == "draining" and shown["reason"].endswith(": CHG-1 new DIMMs")
    held = _openstack(served, "hypervisor", "drain", "cmp-1", "--reason", "CHG-2")
    assert held.returncode != 0 and "cmp-1 is fenced" in held.stderr


def test_hypervisor_drain_allow_cold_needs_api_1_11_and_is_kept_for_the_engine(served, seeded_db):
    old = _openstack(served, "--os-keyvrm-api-version", "1.10", "hypervisor", "drain", "cmp-2", "--reason", "CHG-30",
                     "--allow-cold")
    assert old.returncode != 0 and "allow_cold needs microversion 1.11" in old.stderr
    assert db_api.get_hypervisor_state(seeded_db, "cmp-2")["state"] == "ok"
    result = _openstack(served, "hypervisor", "drain", "cmp-2", "--reason", "CHG-30", "--allow-cold", "-f", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["reason"].endswith(" (cold migration allowed): CHG-30")
    assert [row[-1] for row in db_api.list_hypervisors_draining(seeded_db)] == [True]


def test_aggregate_load_lists_each_host_with_its_score_and_overload_causes(served, seeded_db):
    db_api.update_aggregate_config(seeded_db, "agg-a", {"lb_ceilings": {"cpu": 85}}, "test")
    seed.store(seeded_db, seed.loaded_snapshot())
    result = _openstack(served, "aggregate", "load", "agg-a", "-f", "json")
    assert result.returncode == 0, result.stderr
    hot, partial = json.loads(result.stdout)
    assert (hot["host"], hot["cpu"], hot["overloaded"], hot["causes"], hot["vm_count"]) == (
        "cmp-1", 100.0, True, ["cpu 100% >= ceiling 85%"], 2)
    assert (partial["host"], partial["net"], partial["missing"]) == ("cmp-2", None, ["net"])


def test_aggregate_load_of_an_unknown_aggregate_fails_with_the_api_message(served):
    result = _openstack(served, "aggregate", "load", "nope")
    assert result.returncode == 1 and "nope" in result.stderr


def test_event_show_names_each_host_that_rejected_a_vm_without_target(served):
    result = _openstack(served, "event", "show", "ev-3")  # the table an operator reads
    assert result.returncode == 0, result.stderr
    [row] = [line for line in result.stdout.splitlines() if line.startswith("| no_target ")]
    assert "| vm vm-9 on cmp-1: cmp-2 ServerGroupAntiAffinityFilter" in row
    result = _openstack(served, "event", "show", "ev-3", "-f", "json")
    assert result.returncode == 0, result.stderr
    [entry] = json.loads(result.stdout)["no_target"]
    assert entry["rejected_hosts"] == [{"host": "cmp-2", "check": "ServerGroupAntiAffinityFilter", "vms": 1}]


def test_api_version_option_pins_a_known_microversion_and_refuses_an_unknown_one(served):
    pinned = _openstack(served, "--os-keyvrm-api-version", "1.0", "event", "show", "ev-1", "-f", "json")
    assert pinned.returncode == 0, pinned.stderr
    assert json.loads(pinned.stdout)["id"] == "ev-1"
    unknown = _openstack(served, "--os-keyvrm-api-version", "1.99", "event", "show", "ev-1")
    assert unknown.returncode != 0
    assert "--os-keyvrm-api-version: '1.99'" in unknown.stderr


def _table_cells(stdout):
    """The value column of a ShowOne or one-column Lister table, line by line, right-stripped."""
    return [line.split("|")[-2].rstrip()[1:] for line in stdout.splitlines() if line.startswith("|")]


def test_event_show_groups_the_reasons_by_code_and_an_older_version_reads_the_text(served):
    result = _openstack(served, "event", "show", "ev-2", "-c", "reasons")  # the table an operator reads
    assert result.returncode == 0, result.stderr
    assert _table_cells(result.stdout)[1:] == [
        "overloaded: 12 hypervisors of agg-b overloaded"] + [
        "  cmp-%02d cpu 95%% >= ceiling 90%%" % i for i in range(3, 12)] + ["  (+3 more)"]
    listed = _openstack(served, "event", "list", "--aggregate", "agg-b", "-c", "reasons")
    assert _table_cells(listed.stdout) == ["reasons", "overloaded (13)"]
    old = _openstack(served, "--os-keyvrm-api-version", "1.0", "event", "show", "ev-2", "-c", "reason", "-f", "value")
    assert old.returncode == 0, old.stderr
    assert old.stdout.startswith("[overloaded] 12 hypervisors of agg-b overloaded; [overloaded] cmp-03 cpu")


def test_cycle_show_as_a_table_lists_each_outcome_on_a_line(served, seeded_db):
    cycle_id = min(c["id"] for c in db_api.page_cycles(seeded_db, 10))
    result = _openstack(served, "cycle", "show", str(cycle_id))
    assert result.returncode == 0, result.stderr
    assert "| outcomes    | LB agg-c: lb_too_early: LB on agg-c too early: next run allowed in 120 s" in result.stdout
