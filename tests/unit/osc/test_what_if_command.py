"""`openstack keyvrm aggregate what-if AGG --fail HOST` and `aggregate failover AGG`: the real shell and client.

The command runs in this process through python-openstackclient's own shell, with the
command registered by hand: the shared test environment's installed entry points may
predate it (``test_cli.py`` runs the installed ``openstack`` as a separate process). One
server serves the module: a second shell in the same process still asked the first
test's server (its port, closed by then).
"""

import json

import msgspec
from openstackclient import shell
import pytest

from keyvrm.api import serve
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.model import snapshot as m
from keyvrm.planning import failure_domains
from keyvrmclient.osc.v1 import aggregate
from tests.unit.api import seed
from tests.unit.api import test_aggregate_what_if as api_case
from tests.unit.planning import builders as b


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    sqlite_db = db_api.Database("sqlite:///%s/keyvrm.sqlite" % tmp_path_factory.mktemp("what_if"))
    migration.upgrade(sqlite_db.engine)
    seed.seed(sqlite_db)
    db_api.update_app_config(sqlite_db, {"enabled": True}, "test")
    db_api.update_aggregate_config(sqlite_db, "agg-a", {"storage_mode": "shared"}, "test")
    racked = ("agg-a", "rack-a")  # h1 and h2 in a rack aggregate labelled rack-a: h1's big VM fits in no host left
    hosts = [api_case._host("h1", aggregates=racked), api_case._host("h2", aggregates=racked),
             api_case._host("h3", ram_mb=8192), api_case._host("h4", ram_mb=8192)]
    region = api_case._region([b.vm("first", "h1", evacuate_order=1), b.vm("big", "h1", ram_mb=98304),
                               b.vm("pinned", "h1", no_evac=True), b.vm("any", "h2")], hosts)
    rack = m.Aggregate("rack-a", 3, None, "az1", {failure_domains.DOMAIN_KEY: "rack-a"}, ("h1", "h2"))
    seed.store(sqlite_db, msgspec.structs.replace(region, aggregates=region.aggregates + (rack,)))
    server = serve.serve_in_thread(seed.make_app(sqlite_db), "127.0.0.1", 0)
    yield server
    server.shutdown()
    sqlite_db.dispose()


def _openstack(server, capsys, *args, command="what-if"):
    app = shell.OpenStackShell()
    app.command_manager.add_command("keyvrm aggregate what-if", aggregate.WhatIfAggregate)
    app.command_manager.add_command("keyvrm aggregate failover", aggregate.FailoverAggregate)
    code = app.run(["--os-auth-type", "none", "--os-endpoint", server.url, "keyvrm", "aggregate", command,
                    *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _cells(table):
    """The rows of a printed table as lists of stripped cells, header first."""
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("|")]


def test_what_if_prints_the_moves_the_vms_that_stay_and_the_end_states(served, capsys):
    moves, stay, hosts = _openstack(served, capsys, "agg-a", "--fail", "h1").rstrip("\n").split("\n\n")
    assert _cells(moves) == [list(aggregate.MOVE_COLUMNS), ["1", "1", "first", "first", "h1", "h2", "1", "1"]]
    assert stay.startswith("VMs that would stay on a failed host:")
    assert _cells(stay)[1:] == [  # without a target: the check that rejected each candidate host
        ["big", "h1", "ram_depleted", "h2 ram_depleted, h3 ram_depleted, h4 ram_depleted"],
        ["pinned", "h1", "excluded_by_metadata", "VM pinned excluded by metadata key ha_no_evacuate"]]
    assert _cells(hosts)[1:] == [["h1", "True", "error", "3", "1", "2"]]


def test_what_if_says_when_the_mass_failure_guard_would_stop_ha(served, capsys):
    text = _openstack(served, capsys, "agg-a", "--fail", "h1", "--fail", "h2", "--fail", "h3")
    assert "\nmass_failure_guard: 3 of 4 hypervisors of agg-a newly condemned at once" in text


def test_what_if_as_json_is_the_api_answer(served, capsys):
    found = json.loads(_openstack(served, capsys, "agg-a", "--fail", "h1", "--fail", "h2", "-f", "json"))
    assert found["fail"] == ["h1", "h2"] and found["ha_runs"] is True
    first, second = found["hosts"]
    assert [m["vm_id"] for m in first["moves"]] == ["first"] and first["moves"][0]["step"] == 1
    assert [e["vm_id"] for e in first["no_target"]] == ["big"]
    assert second["end_state"] == "maintenance" and second["moves"][0]["target"] in ("h3", "h4")


def test_failover_prints_the_verdict_then_each_vm_at_risk_with_the_checks_that_refused_it(served, capsys):
    hosts, domains = _openstack(served, capsys, "agg-a", command="failover").split("\n\n")
    first, table = hosts.split("\n", 1)
    assert first.startswith("agg-a tolerates 0 host failure(s) of 4 hosts; reserve 1: BELOW its reserve")
    assert _cells(table) == [list(aggregate.AT_RISK_COLUMNS),
                             ["h1", "big", "ram_depleted", "h2 ram_depleted, h3 ram_depleted, h4 ram_depleted"]]
    line, racks = domains.split("\n", 1)  # the rack's loss, h1 and h2 together (API 1.5)
    assert line == "1 failure domain(s), 1 whose failure leaves VMs without a target:"
    assert _cells(racks) == [list(aggregate.DOMAIN_AT_RISK_COLUMNS),
                             ["rack-a", "big", "ram_depleted", "h3 ram_depleted, h4 ram_depleted"]]


def test_failover_as_json_is_the_api_answer(served, capsys):
    found = json.loads(_openstack(served, capsys, "agg-a", "-f", "json", command="failover"))
    assert (found["tolerance"], found["reserve"], found["below_reserve"], found["hosts"]) == (0, 1, True, 4)
    assert [(risk["hosts"], [e["vm_id"] for e in risk["vms_without_target"]]) for risk in found["at_risk"]] == [
        (["h1"], ["big"])]
    assert [(d["name"], d["hosts"], [e["vm_id"] for e in d["vms_without_target"]])
            for d in found["failure_domains"]] == [("rack-a", ["h1", "h2"], ["big"])]
