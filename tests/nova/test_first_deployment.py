"""A first deployment by the README on real Nova without Keystone (issue 32 item 6): what the operator reads.

The session's fake cloud (real Nova and Placement, noauth endpoints), and KeyVRM as the
README deploys it, every command its own process from one ``keyvrm.conf`` that sets where
things are: SQLite, the fake cloud's endpoints with ``[cloud] auth_type = none``, a
VictoriaMetrics with no series yet, one plain Redis with no heartbeat yet, RabbitMQ.

``keyvrm-status upgrade check`` says that there is no Keystone catalog to read (it printed
``'NoAuth' object has no attribute 'get_access'``), a warning among warnings; the first
aggregate change after KeyVRM is enabled says that aggregates come from the first cycle and
how to run one, and after a cycle asked for it works (through ``keyvrmclient``, what
``openstack keyvrm aggregate set``, ``config set --enabled true`` and ``cycle run`` call;
``tests/unit/osc/test_cli.py`` shows the CLI printing the same answer). Every aggregate
stays NOOP: the engine reads the shared cloud, never acts on it.
"""

import json
import os
import pathlib
import subprocess
import sys

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
import pytest
import requests

from keyvrmclient import v1
from tests.functional.harvest import conftest as peers
from tests.nova import conftest as nova_helpers

BIN = pathlib.Path(sys.executable).parent
ENV = dict(os.environ, PYTHONWARNINGS="ignore")
NO_KEYSTONE = ("not checked: the [cloud] credentials reach no Keystone (auth plugin NoAuth), so there is no catalog "
               "to read: with [cloud] auth_type = password and its options this check looks for rival services")
FIRST_CYCLE_HINT = ("aggregate 'agg-read-a' is not known to KeyVRM yet: it learns the aggregates from Nova at its "
                    "first cycle, and none has run; run one now (openstack keyvrm cycle run, POST /v1/cycles)")


class _Processes:
    """Processes started by the test, stopped (SIGTERM, then SIGKILL) at its end; logs under ``workdir``."""

    def __init__(self, workdir):
        self.workdir, self.running, self.logs = workdir, [], []

    def start(self, name, command):
        log = open(self.workdir / ("%s.log" % name), "w")
        self.logs.append(log)
        self.running.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=ENV))

    def wait(self, check, what):
        """Poll ``check`` for up to 60 s until truthy; else fail with ``what`` and the engine log's tail."""
        try:
            nova_helpers.wait_for(check, timeout_s=60, interval_s=0.2)
        except AssertionError as exc:
            tail = (self.workdir / "keyvrm-engine.log").read_text(errors="replace")[-3000:]
            raise AssertionError("%s: %s\n--- keyvrm-engine.log ---\n%s" % (what, exc, tail)) from None

    def stop(self):
        for process in reversed(self.running):
            peers.stop(process)
        for log in self.logs:
            log.close()


@pytest.fixture
def processes(tmp_path):
    started = _Processes(tmp_path)
    yield started
    started.stop()


def _healthy(url):
    try:
        return requests.get(url, timeout=1).ok
    except requests.RequestException:
        return False


def _redis_answers(port):
    try:
        return peers.redis.Redis(port=port, socket_timeout=1).ping()
    except peers.redis.RedisError:
        return False


def _peers(processes, tmp_path):
    """Start an empty VictoriaMetrics and one Redis; (TSDB URL, Redis URL) once both answer."""
    tsdb_port, redis_port = peers.free_port(), peers.free_port()
    (tmp_path / "tsdb").mkdir()
    processes.start("victoria-metrics", [peers.require_binary("victoria-metrics"),
                                         "-httpListenAddr=127.0.0.1:%d" % tsdb_port,
                                         "-storageDataPath=%s" % (tmp_path / "tsdb")])
    processes.start("redis", [peers.require_binary("redis-server"), "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", str(tmp_path)])
    tsdb_url = "http://127.0.0.1:%d" % tsdb_port
    peers.wait_for(lambda: _healthy(tsdb_url + "/health"), 20, "victoria-metrics did not answer")
    peers.wait_for(lambda: _redis_answers(redis_port), 20, "redis did not answer")
    return tsdb_url, "redis://127.0.0.1:%d/0" % redis_port


def _config(tmp_path, cloud, tsdb_url, redis_url, api_port):
    """keyvrm.conf as the README's deployment writes it, with the fake cloud's endpoints and no Keystone."""
    config = tmp_path / "keyvrm.conf"
    config.write_text(cloud.keyvrm_conf(state_path=tmp_path / "state", db_url=f"sqlite:///{tmp_path / 'keyvrm.sqlite'}",
                                        api_port=api_port, tsdb_url=tsdb_url)
                      + f"[heartbeat]\ndriver = redis\nredis_url = {redis_url}\n")
    (tmp_path / "state").mkdir()
    return config


def _run(*command):
    return subprocess.run([str(BIN / command[0]), *command[1:]], capture_output=True, text=True, env=ENV, timeout=120)


def test_a_first_deployment_without_keystone_is_told_what_to_do_and_its_first_aggregate_change_works(
        fake_cloud, tmp_path, processes):
    api_port = peers.free_port()
    config = _config(tmp_path, fake_cloud, *_peers(processes, tmp_path), api_port)
    synced = _run("keyvrm-manage", "--config-file", str(config), "db", "sync")
    assert synced.returncode == 0, synced.stderr
    status = subprocess.Popen([str(BIN / "keyvrm-status"), "--config-file", str(config), "upgrade", "check", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    processes.start("keyvrm-api", [str(BIN / "keyvrm-api"), "--config-file", str(config)])
    processes.start("keyvrm-engine", [str(BIN / "keyvrm-engine"), "--config-file", str(config)])

    printed, errors = status.communicate(timeout=120)
    assert "Traceback" not in errors and "get_access" not in printed
    assert status.returncode == 1, (printed, errors)  # warnings, no failure
    checks = {check["check"]: (check["result"], check["details"]) for check in json.loads(printed)["checks"]}
    assert checks["No other automatic evacuation or balancing"] == (1, NO_KEYSTONE)
    assert checks["Database schema"][0] == checks["Fencing for HA aggregates"][0] == 0
    assert checks["Metrics source"][0] == checks["Heartbeat source"][0] == 1  # nothing recorded yet

    client = v1.Client(session=ks_session.Session(), endpoint_override="http://127.0.0.1:%d" % api_port)
    # the engine's first cycle, at its start, is skipped (KeyVRM disabled); the next is a period away
    processes.wait(lambda: [cycle["status"] for cycle in _cycles(client)] == ["skipped"],
                   "the engine's first cycle was not skipped")
    client.update_config(enabled=True)
    with pytest.raises(v1.ClientError) as refused:
        client.update_aggregate("agg-read-a", marker="HA")
    assert refused.value.status == 404 and refused.value.detail.startswith(FIRST_CYCLE_HINT), refused.value.detail

    assert client.request_cycle()["engine_notified"] is True
    processes.wait(lambda: "completed" in [cycle["status"] for cycle in _cycles(client)],
                   "the cycle asked for did not complete")
    shown = client.update_aggregate("agg-read-a", marker="HA")
    assert (shown["name"], shown["marker"], shown["no_op_mode"]) == ("agg-read-a", "HA", True)


def _cycles(client):
    """The newest cycles; none while the API does not answer yet."""
    try:
        return client.list_cycles(limit=10)
    except ks_exceptions.ConnectFailure:
        return []
