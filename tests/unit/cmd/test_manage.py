"""keyvrm-manage as an operator runs it: a real process, a real database file or server."""

import datetime
import json
import os
import subprocess
import sys

import pytest

from keyvrm.db import migration
from keyvrm.db import models


def _manage(tmp_path, *args, config_file=None):
    env = dict(os.environ, KEYVRM_STATE_PATH=str(tmp_path))
    env.pop("KEYVRM_CONFIG_FILE", None)
    argv = [sys.executable, "-W", "ignore", "-m", "keyvrm.cmd.manage"]
    if config_file:
        argv += ["--config-file", str(config_file)]
    return subprocess.run(argv + list(args), env=env, capture_output=True, text=True, timeout=60)


def test_db_sync_creates_the_sqlite_database_under_the_state_dir(tmp_path):
    assert _manage(tmp_path, "db", "version").returncode == 1
    result = _manage(tmp_path, "db", "sync")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "keyvrm.sqlite").exists()
    version = _manage(tmp_path, "db", "version")
    assert version.returncode == 0 and "current: %s" % migration.head_revision() in version.stdout


def test_config_show_prints_defaults_as_json(tmp_path):
    _manage(tmp_path, "db", "sync")
    result = _manage(tmp_path, "config", "show", "--format", "json")
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["enabled"] is False and shown["period"] == 60
    assert shown["ha_no_evacuate_key"] == "ha_no_evacuate"


def test_config_set_changes_one_field(tmp_path):
    _manage(tmp_path, "db", "sync")
    assert _manage(tmp_path, "config", "set", "period", "300").returncode == 0
    shown = json.loads(_manage(tmp_path, "config", "show", "--format", "json").stdout)
    assert shown["period"] == 300


@pytest.mark.parametrize("field, value", [("period", "-1"), ("nova_filters", "Bogus"),
                                          ("ha_fence_bmc", "perhaps")])
def test_bad_value_exits_non_zero_naming_the_field_and_changes_nothing(tmp_path, field, value):
    _manage(tmp_path, "db", "sync")
    before = _manage(tmp_path, "config", "show", "--format", "json").stdout
    result = _manage(tmp_path, "config", "set", field, value)
    assert result.returncode == 1
    assert ("invalid %s:" % field) in result.stderr
    assert _manage(tmp_path, "config", "show", "--format", "json").stdout == before


def test_unknown_field_is_refused_by_the_parser(tmp_path):
    result = _manage(tmp_path, "config", "set", "no_such_field", "1")
    assert result.returncode != 0 and "no_such_field" in result.stderr


def test_config_show_on_an_empty_database_says_to_sync(tmp_path):
    result = _manage(tmp_path, "config", "show")
    assert result.returncode == 1 and "keyvrm-manage db sync" in result.stderr


@pytest.mark.postgresql
def test_db_sync_on_postgresql_through_a_config_file(tmp_path, pg_databases):
    url = pg_databases()
    config_file = tmp_path / "keyvrm.conf"
    config_file.write_text("[database]\nconnection = %s\n" % url)
    result = _manage(tmp_path, "db", "sync", config_file=config_file)
    assert result.returncode == 0, result.stderr
    assert "postgresql" in result.stdout
    assert not (tmp_path / "keyvrm.sqlite").exists()
    assert _manage(tmp_path, "db", "version", config_file=config_file).returncode == 0


def test_db_purge_commits_batches_of_max_rows_and_prints_each_and_refuses_a_bad_date(tmp_path, sqlite_db):
    old = datetime.datetime(2026, 1, 1)
    with sqlite_db.writer() as session:
        session.add_all(models.VMHistory(vm_id="vm-%d" % i, action="stop", status="succeeded",
                                         started_at=old, finished_at=old) for i in range(5))
    config_file = tmp_path / "keyvrm.conf"
    config_file.write_text("[database]\npurge_max_rows = 2\n")
    result = _manage(tmp_path, "db", "purge", "--before", "2026-06-01T00:00+02:00", config_file=config_file)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "  batch 1: 2 vm_history (2 so far)", "  batch 2: 2 vm_history (4 so far)",
        "  batch 3: 1 vm_history (5 so far)",
        "purged before 2026-05-31T22:00:00 in 3 batches of at most 2 rows: 0 operations, "
        "0 recommendations, 0 events, 0 cycle_outcomes, 0 cycles, 5 vm_history"]
    bad = _manage(tmp_path, "db", "purge", "--before", "June")
    assert bad.returncode != 0 and "before" in bad.stderr
