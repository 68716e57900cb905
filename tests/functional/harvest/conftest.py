"""Fixtures that start real harvest peers on loopback: VictoriaMetrics and a Redis Sentinel set.

Each gets free ports and a fresh temp dir, runs in the foreground under Popen and is
stopped by PID afterwards. A missing binary skips the test on a workstation and fails
it in CI (``CI=true``).
"""

import os
import shutil
import socket
import subprocess
import textwrap
import time

from oslo_config import cfg
import pytest
import redis
import requests

from keyvrm.conf import metrics as metrics_conf
from keyvrm.drivers.metrics.prometheus import PrometheusMetricsDriver

SERVICE = "keyvrm-test"


def require_binary(name):
    """Path of ``name``; skip without it, unless CI=true, where its absence fails the test."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{name} is required in CI but is not installed")
        pytest.skip(f"{name} is not installed")
    return path


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check, timeout_s, what):
    """Poll ``check`` every 50 ms until it returns something truthy; that value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} within {timeout_s} s")


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def default_metrics_driver(url, window_s=300, clock=None):
    """The Prometheus driver with the default [metrics] queries, reading ``url``."""
    conf = cfg.ConfigOpts()
    metrics_conf.register_opts(conf)
    conf([], project="keyvrm")
    conf.set_override("url", url, "metrics")
    conf.set_override("window", window_s, "metrics")
    return PrometheusMetricsDriver.from_conf(conf, clock=clock)


class VictoriaMetrics:
    """A running victoria-metrics: import Prometheus text lines, flush, wipe."""

    def __init__(self, url):
        self.url = url

    def import_lines(self, lines):
        resp = requests.post(self.url + "/api/v1/import/prometheus",
                             data="\n".join(lines) + "\n", timeout=10)
        resp.raise_for_status()
        requests.get(self.url + "/internal/force_flush", timeout=10).raise_for_status()

    def wipe(self):
        requests.post(self.url + "/api/v1/admin/tsdb/delete_series",
                      data={"match[]": '{__name__=~".+"}'}, timeout=10).raise_for_status()


@pytest.fixture(scope="module")
def victoria_metrics(tmp_path_factory):
    """One victoria-metrics per test module (wiped before each test by ``tsdb``)."""
    binary = require_binary("victoria-metrics")
    data = tmp_path_factory.mktemp("vm-data")
    port = free_port()
    log = open(data / "vm.log", "w")
    process = subprocess.Popen(
        [binary, f"-httpListenAddr=127.0.0.1:{port}", f"-storageDataPath={data}",
         "-retentionPeriod=100y", "-search.disableCache", "-search.latencyOffset=0s"],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return requests.get(url + "/health", timeout=1).ok
        except requests.RequestException:
            return False
    try:
        wait_for(healthy, 20, "victoria-metrics did not come up")
        yield VictoriaMetrics(url)
    finally:
        stop(process)
        log.close()


@pytest.fixture
def tsdb(victoria_metrics):
    """The module's victoria-metrics, emptied of series."""
    victoria_metrics.wipe()
    return victoria_metrics


class SentinelSet:
    """A Redis master, one replica and three Sentinels, all on loopback."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.processes = {}
        self.logs = []
        self.master_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]

    @property
    def sentinels(self):
        return ["127.0.0.1:%d" % port for port in self.sentinel_ports]

    def _spawn(self, name, args):
        log = open(self.tmp_path / f"{name}.log", "w")
        self.logs.append(log)
        self.processes[name] = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                                cwd=self.tmp_path)

    def start(self, server, sentinel):
        for name, port, extra in (("master", self.master_port, []),
                                  ("replica", self.replica_port,
                                   ["--replicaof", "127.0.0.1", str(self.master_port)])):
            work = self.tmp_path / name
            work.mkdir()
            self._spawn(name, [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--repl-diskless-sync-delay", "0",
                               "--dir", str(work)] + extra)
        # Sentinels started before the replica is linked learn of it only ~10 s later.
        wait_for(self._replica_linked, 20, "the replica did not link to the master")
        for i, port in enumerate(self.sentinel_ports):
            conf = self.tmp_path / f"sentinel-{i}.conf"
            conf.write_text(textwrap.dedent(f"""\
                port {port}
                bind 127.0.0.1
                dir {self.tmp_path}
                sentinel monitor {SERVICE} 127.0.0.1 {self.master_port} 2
                sentinel down-after-milliseconds {SERVICE} 1000
                sentinel failover-timeout {SERVICE} 3000
                sentinel parallel-syncs {SERVICE} 1
                """))
            self._spawn(f"sentinel-{i}", [sentinel, str(conf)])
        wait_for(self._ready, 20, "master, replica and sentinels did not see each other")

    def _replica_linked(self):
        try:
            info = redis.Redis(port=self.replica_port, socket_timeout=1).info("replication")
        except redis.RedisError:
            return False
        return info.get("master_link_status") == "up"

    def _ready(self):
        try:
            for port in self.sentinel_ports:
                master = redis.Redis(port=port, socket_timeout=1).sentinel_master(SERVICE)
                if master.get("num-other-sentinels", 0) < 2 or master.get("num-slaves", 0) < 1:
                    return False
            return True
        except redis.RedisError:
            return False

    def master_address(self):
        """(host, port) of the master the first answering Sentinel names, else None."""
        for port in self.sentinel_ports:
            try:
                host, master_port = redis.Redis(port=port, socket_timeout=1, decode_responses=True) \
                    .sentinel_get_master_addr_by_name(SERVICE)
                return host, int(master_port)
            except (redis.RedisError, TypeError):
                continue
        return None

    def kill(self, name):
        process = self.processes[name]
        process.kill()
        process.wait()

    def stop(self):
        for process in self.processes.values():
            stop(process)
        for log in self.logs:
            log.close()


def _sentinel_set(tmp_path):
    server = require_binary("redis-server")
    sentinel = require_binary("redis-sentinel")
    cluster = SentinelSet(tmp_path)
    try:
        cluster.start(server, sentinel)
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def sentinel_set(tmp_path):
    """A started master + replica + 3 Sentinels (service ``SERVICE``) of this test alone."""
    yield from _sentinel_set(tmp_path)


@pytest.fixture(scope="session")
def shared_sentinel_set(tmp_path_factory):
    """One Sentinel set for the tests that neither kill nor reconfigure anything."""
    yield from _sentinel_set(tmp_path_factory.mktemp("sentinels"))
