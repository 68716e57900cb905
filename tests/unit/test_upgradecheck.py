"""keyvrm-status upgrade check: each check's verdict on a deployment's database, catalog and sources."""

from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_upgradecheck import upgradecheck as oslo_upgradecheck
import pytest

from keyvrm.cmd import status
from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.drivers import errors
from keyvrm.model import snapshot
from keyvrm import upgradecheck

Code = oslo_upgradecheck.Code


class Answering:
    def __init__(self, hosts=("cmp-1",)):
        self.hosts = hosts

    def host_metrics(self):
        return dict.fromkeys(self.hosts)

    def last_heartbeats(self):
        return dict.fromkeys(self.hosts, 1.0)


class Silent:
    def host_metrics(self):
        raise errors.DriverUnavailable("TSDB at http://tsdb did not answer")

    last_heartbeats = host_metrics


def make_conf(tmp_path):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    policy_opts.set_defaults(conf)
    conf([], project="keyvrm", default_config_files=[])
    conf.set_override("connection", "sqlite:///%s/keyvrm.sqlite" % tmp_path, group="database")
    return conf


def checks(conf, catalog=(), metrics=Answering(), heartbeat=Answering()):
    def catalog_types(_conf):
        if isinstance(catalog, Exception):
            raise catalog
        return set(catalog)
    return upgradecheck.Checks(conf, catalog_types=catalog_types, metrics=lambda _c: metrics,
                               heartbeat=lambda _c: heartbeat)


@pytest.fixture
def ready(tmp_path):
    conf = make_conf(tmp_path)
    db = db_api.Database(conf.database.connection)
    migration.upgrade(db.engine)
    db_api.sync_aggregates(db, [])
    yield conf, db
    db.dispose()


def verdicts(command):
    return {name: (func(command).code, func(command).details) for name, func in command._upgrade_checks}


def test_an_empty_database_fails_the_schema_check_and_leaves_config_checks_unchecked(tmp_path):
    found = verdicts(checks(make_conf(tmp_path)))
    assert found["Database schema"][0] == Code.FAILURE and "keyvrm-manage db sync" in found["Database schema"][1]
    assert found["Fencing for HA aggregates"][0] == Code.WARNING
    assert "not checked" in found["Storage mode of HA aggregates"][1]


def test_a_ready_deployment_passes_every_check(ready):
    conf, _ = ready
    command = checks(conf)
    assert {name: code for name, (code, _) in verdicts(command).items()} == {
        name: Code.SUCCESS for name, _ in command._upgrade_checks}
    assert command.check() == Code.SUCCESS


def _ha_aggregate(db, **changes):
    db_api.sync_aggregates(db, [snapshot.Aggregate(name="agg-ha", nova_id=1, availability_zone="az-1")])
    db_api.update_aggregate_config(db, "agg-ha", dict({"marker": "HA", "no_op_mode": False}, **changes), "test")


def test_ha_without_any_fencer_fails_and_an_undeclared_storage_mode_warns(ready):
    conf, db = ready
    _ha_aggregate(db)
    db_api.update_app_config(db, {"ha_fence_nova": False}, "test")
    found = verdicts(checks(conf))
    assert found["Fencing for HA aggregates"][0] == Code.FAILURE and "agg-ha" in found["Fencing for HA aggregates"][1]
    assert found["Storage mode of HA aggregates"] == (
        Code.WARNING, "HA waits on aggregates agg-ha until their storage_mode is declared "
                      "(openstack keyvrm aggregate set NAME --storage-mode shared|local|none)")
    db_api.update_app_config(db, {"ha_fence_bmc": True}, "test")
    assert verdicts(checks(conf))["Fencing for HA aggregates"] == (Code.SUCCESS, "fencers enabled: bmc")


def test_masakari_or_watcher_in_the_catalog_warns_and_an_unreadable_catalog_warns(ready):
    conf, _ = ready
    code, details = verdicts(checks(conf, catalog={"compute", "instance-ha", "resource-optimization"}))[
        "No other automatic evacuation or balancing"]
    assert code == Code.WARNING and "Masakari (instance-ha) and Watcher (resource-optimization)" in details
    code, details = verdicts(checks(conf, catalog=ConnectionError("keystone down")))[
        "No other automatic evacuation or balancing"]
    assert code == Code.WARNING and "keystone down" in details


def test_silent_sources_fail_and_empty_ones_warn(ready):
    conf, _ = ready
    found = verdicts(checks(conf, metrics=Silent(), heartbeat=Answering(hosts=())))
    assert found["Metrics source"] == (Code.FAILURE, "the metrics source did not answer: TSDB at http://tsdb "
                                                     "did not answer")
    assert found["Heartbeat source"][0] == Code.WARNING and "keyvrm-heartbeat-agent" in found["Heartbeat source"][1]


def test_the_command_prints_the_table_and_exits_with_the_worst_code(tmp_path, capsys):
    conf_file = tmp_path / "keyvrm.conf"
    conf_file.write_text("[database]\nconnection = sqlite:///%s/empty.sqlite\n"
                         "[metrics]\nurl = http://127.0.0.1:1\n"
                         "[heartbeat]\ndriver = redis\nredis_url = redis://127.0.0.1:1/0\n" % tmp_path)
    code = status.main(["--config-file", str(conf_file), "upgrade", "check"])
    printed = capsys.readouterr().out
    assert code == Code.FAILURE
    assert "Check: Database schema" in printed and "Result: Failure" in printed
    assert "Check: Metrics source" in printed


def test_an_ha_aggregate_the_last_cycle_found_short_of_its_reserve_warns_until_it_is_not(ready):
    conf, db = ready
    _ha_aggregate(db, storage_mode="shared", ha_failover_reserve=1)
    assert verdicts(checks(conf))["Failover reserve of HA aggregates"] == (Code.SUCCESS, None)
    db_api.set_failover(db, "agg-ha", True, 0)
    code, details = verdicts(checks(conf))["Failover reserve of HA aggregates"]
    assert code == Code.WARNING and details.startswith("aggregates agg-ha (reserve 1) cannot absorb")
    db_api.set_failover(db, "agg-ha", False, 1)
    assert verdicts(checks(conf))["Failover reserve of HA aggregates"] == (Code.SUCCESS, None)


def test_a_cloud_without_keystone_is_a_warning_that_there_is_no_catalog_to_read_not_an_attribute_error(ready):
    conf, _ = ready
    conf.set_override("auth_type", "none", group="cloud")  # as the fake cloud runs: endpoints, no Keystone
    conf.set_override("compute_endpoint_override", "http://127.0.0.1:1/compute/v2.1", group="cloud")
    command = upgradecheck.Checks(conf, metrics=lambda _c: Answering(), heartbeat=lambda _c: Answering())
    assert verdicts(command)["No other automatic evacuation or balancing"] == (
        Code.WARNING, "not checked: the [cloud] credentials reach no Keystone (auth plugin NoAuth), so there is no "
                      "catalog to read: with [cloud] auth_type = password and its options this check looks for "
                      "rival services")
    assert command.check() == Code.WARNING


def test_a_database_whose_driver_is_missing_fails_the_schema_check_naming_the_package(ready):
    conf, _ = ready
    conf.set_override("connection", "postgresql+pg8000://keyvrm@127.0.0.1/keyvrm", group="database")  # not installed
    found = verdicts(checks(conf))
    assert found["Database schema"] == (Code.FAILURE, "invalid [database] connection: the database driver of "
                                                      "postgresql+pg8000:// is not installed (pg8000): install the "
                                                      "Python driver pg8000")
    assert found["Fencing for HA aggregates"] == (Code.WARNING, "not checked: the database is not open at the "
                                                                "current schema (see Database schema)")
