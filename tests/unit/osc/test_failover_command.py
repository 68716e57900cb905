"""`openstack keyvrm aggregate failover AGG`: the real shell and client against a served API.

As in ``test_what_if_command``: the command is registered by hand in python-openstackclient's
own shell (the test environment's installed entry points may predate it); one server per module.
"""

import json

from openstackclient import shell
import pytest

from keyvrm.api import serve
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrmclient.osc.v1 import aggregate
from tests.unit.api import seed
from tests.unit.api import test_aggregate_what_if as api_case
from tests.unit.osc import test_what_if_command as what_if_command
from tests.unit.planning import builders as b


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    sqlite_db = db_api.Database("sqlite:///%s/keyvrm.sqlite" % tmp_path_factory.mktemp("failover"))
    migration.upgrade(sqlite_db.engine)
    seed.seed(sqlite_db)
    db_api.update_app_config(sqlite_db, {"enabled": True}, "test")
    db_api.update_aggregate_config(sqlite_db, "agg-a", {"storage_mode": "shared"}, "test")
    hosts = [b.host(h, ram_mb=16384, used_ram_mb=12288, aggregates=("agg-a",)) for h in ("h1", "h2", "h3")]
    seed.store(sqlite_db, api_case._region([b.vm("v%d" % i, h, ram_mb=12288)
                                            for i, h in enumerate(("h1", "h2", "h3"), 1)], hosts))
    server = serve.serve_in_thread(seed.make_app(sqlite_db), "127.0.0.1", 0)
    yield server
    server.shutdown()
    sqlite_db.dispose()


def _openstack(server, capsys, *args):
    app = shell.OpenStackShell()
    app.command_manager.add_command("keyvrm aggregate failover", aggregate.FailoverAggregate)
    code = app.run(["--os-auth-type", "none", "--os-endpoint", server.url, "keyvrm", "aggregate", "failover",
                    *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_failover_prints_the_verdict_then_each_vm_at_risk_with_the_checks_that_refused_it(served, capsys):
    out = _openstack(served, capsys, "agg-a")
    first, table = out.split("\n", 1)
    assert first.startswith("agg-a tolerates 0 host failure(s) of 3 hosts; reserve 1: BELOW its reserve")
    rows = what_if_command._cells(table)
    assert rows[0] == list(aggregate.AT_RISK_COLUMNS)
    assert [row[:3] for row in rows[1:]] == [["h1", "v1", "ram_depleted"], ["h2", "v2", "ram_depleted"],
                                             ["h3", "v3", "ram_depleted"]]
    assert "h2 ram_depleted" in rows[1][3] and "h3 ram_depleted" in rows[1][3]


def test_json_is_the_api_answer(served, capsys):
    found = json.loads(_openstack(served, capsys, "agg-a", "-f", "json"))
    assert (found["tolerance"], found["reserve"], found["below_reserve"]) == (0, 1, True)
    assert [risk["hosts"] for risk in found["at_risk"]] == [["h1"], ["h2"], ["h3"]]
