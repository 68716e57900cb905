"""KeyVRM deployed as an operator deploys it, around real Nova: every service its own process.

- the fake cloud (``tests/fakecloud``: real Nova 34 API, conductor, scheduler, fake
  computes, Placement 16) with Nova's default timers (``service_down_time`` 60 s,
  ``report_interval`` 10 s);
- VictoriaMetrics (the TSDB), a Redis master + replica + 3 Sentinels, and one
  ``keyvrm-heartbeat-agent`` per compute, writing through the Sentinels (or, for regions
  of hundreds of computes, every compute's agent in one ``heartbeat_farm`` process);
- a throwaway PostgreSQL database, migrated by ``keyvrm-manage db sync``;
- ``keyvrm-engine`` and ``keyvrm-api`` from one ``keyvrm.conf`` that sets only where things
  are (database, Nova/Placement/Glance endpoints, TSDB, Sentinels, RabbitMQ), and Nova's
  ``service_down_time`` when the timers are not Nova's defaults: every other option keeps
  its shipped default;
- business config through ``openstack keyvrm ...`` (auth ``none`` against the noauth API), each
  command the CLI's own ``main`` in the deployment's one ``openstack_shell`` process;
- with ``bmc``: an IPMI BMC per compute (``bmc_farm``, one process) that really cuts the
  host's power, its credentials registered with KeyVRM as an operator does (the fencing
  credentials file, ``[fencing] credentials_file``) and BMC fencing on
  (``openstack keyvrm config set --ha-fence-bmc true``). The farm then runs the heartbeat
  agents: a host's power feeds its nova-compute and its agent.

A compute is killed as a hypervisor dies: its nova-compute stops and its heartbeat agent
gets SIGKILL; with ``bmc``, through its BMC's own power-off path, so that its BMC then
reads ``off``.
"""

from __future__ import annotations

import json
import os
import pathlib
import secrets
import signal
import socket
import subprocess
import sys
import textwrap
import time

import requests
import yaml

from keyvrm.fencing import credentials as creds
from tests.e2e import bmc_farm
from tests.e2e import heartbeat_farm
from tests.e2e import openstack_shell
from tests.fakecloud import client as fakecloud
from tests.functional.fencing import conftest as fencing_peers
from tests.functional.harvest import conftest as peers
from tests.nova import conftest as nova_helpers

BIN = pathlib.Path(sys.executable).parent
NOVA_TIMERS = (60, 10)  # Nova's defaults: service_down_time, report_interval
ENV = dict(os.environ, PYTHONWARNINGS="ignore")


class Deployment:
    """The running region and KeyVRM's services on it (see the module docstring)."""

    def __init__(self, workdir: pathlib.Path, db_url: str, computes: int = 5, *,
                 nova_timers=NOVA_TIMERS, farm_heartbeats=False, bmc=False):
        """A deployment of ``computes`` computes; nothing starts before ``start``.

        ``nova_timers``: Nova's (service_down_time, report_interval), s; ``farm_heartbeats``:
        the agents run in one ``heartbeat_farm`` process instead of one process per compute
        (with ``bmc``: as threads of the BMC farm); ``bmc``: each compute has a BMC and KeyVRM
        fences through it (module docstring).
        """
        self.workdir = workdir
        self.db_url = db_url
        self.computes = computes
        self.nova_timers = nova_timers
        self.farm_heartbeats = farm_heartbeats
        self.bmc = bmc
        self.bmcs = None
        self.bmc_credentials = {}
        self.farm = None
        self.booting = None
        self.shell = None
        self.cloud = None
        self.db_sync = None
        self.tsdb_process = None
        self.sentinels = None
        self.agents = {}
        self.services = {}
        self.logs = []
        self.api_url = None
        self.tsdb_url = None

    # --- start and stop -------------------------------------------------------------------

    def start(self):
        """Start every peer, then KeyVRM; returns once the API answers.

        The fake cloud sets itself up (Nova's and Placement's databases, the computes) while
        the database is migrated and the TSDB and the Sentinels start: none of these needs
        another, and the first two are seconds of CPU each. The heartbeat agents and
        KeyVRM's services need them all, so they start after.
        """
        (self.workdir / "cloud").mkdir()
        self.booting = fakecloud.launch(self.workdir / "cloud", computes=self.computes,
                                        python=str(BIN / "python"), nova_timers=self.nova_timers)
        self.db_sync = self._start_db_sync()
        self._start_tsdb()
        sentinel_dir = self.workdir / "sentinels"
        sentinel_dir.mkdir()
        self.sentinels = peers.SentinelSet(sentinel_dir)
        self.sentinels.start(peers.require_binary("redis-server"), peers.require_binary("redis-sentinel"))
        self.cloud = self.booting.wait()
        self.config = self._write_config()
        if self.bmc:
            self._start_bmcs()
        else:
            for host in self.cloud.endpoints["hosts"]:
                self.start_agent(host)
        self._wait_db_synced()
        self.start_service("keyvrm-api")
        self.start_service("keyvrm-engine")
        self.wait(self._api_answers, 60, "keyvrm-api did not answer")
        if self.bmc:
            self.openstack("config", "set", "--ha-fence-bmc", "true")

    def stop(self):
        """Stop KeyVRM's services, then the peers they use (a task finishing its step may still need them).

        The services are signalled together: keyvrm-engine's graceful stop (its RPC server,
        the running task of each flow: seconds) runs while keyvrm-api stops.
        """
        services = [self.services.pop(name) for name in list(self.services)]
        if self.db_sync is not None:
            services.append(self.db_sync)  # still running only if the start failed
        for process in services:
            _terminate(process)
        for process in services:
            _reap(process)
        for host in list(self.agents):
            self.kill_agent(host)
        for helper in (self.shell, self.farm, self.bmcs):
            if helper is not None:
                helper.stop()
        if self.sentinels is not None:
            self.sentinels.stop()
        if self.tsdb_process is not None:
            peers.stop(self.tsdb_process)
        if self.cloud is not None:
            self.cloud.stop()
        elif self.booting is not None:
            self.booting.stop()
        for log in self.logs:
            log.close()

    def _start_tsdb(self):
        data = self.workdir / "tsdb"
        data.mkdir()
        port = peers.free_port()
        log = self._log("victoria-metrics")
        self.tsdb_process = subprocess.Popen(
            [peers.require_binary("victoria-metrics"), f"-httpListenAddr=127.0.0.1:{port}",
             f"-storageDataPath={data}", "-retentionPeriod=100y", "-search.disableCache",
             "-search.latencyOffset=0s"], stdout=log, stderr=subprocess.STDOUT)
        self.tsdb_url = f"http://127.0.0.1:{port}"

        def healthy():
            try:
                return requests.get(self.tsdb_url + "/health", timeout=1).ok
            except requests.RequestException:
                return False
        nova_helpers.wait_for(healthy, timeout_s=20.0)

    def _write_config(self) -> pathlib.Path:
        self.api_port = peers.free_port()
        self.api_url = f"http://127.0.0.1:{self.api_port}"
        config = self.workdir / "keyvrm.conf"
        config.write_text(self.cloud.keyvrm_conf(state_path=self.workdir / "state", db_url=self.db_url,
                                                 api_port=self.api_port, tsdb_url=self.tsdb_url)
                          + f"[heartbeat]\nsentinels = {','.join(self.sentinels.sentinels)}\n"
                          f"service_name = {peers.SERVICE}\n")
        if self.nova_timers[0] != NOVA_TIMERS[0]:  # as an operator whose Nova is not on its default
            with open(config, "a") as stream:
                stream.write("[ha]\nnova_service_down_time = %d\n" % self.nova_timers[0])
        if self.bmc:
            with open(config, "a") as stream:
                stream.write("[fencing]\ncredentials_file = %s\n" % self.credentials_file)
        (self.workdir / "state").mkdir(exist_ok=True)
        return config

    def _log(self, name):
        log = open(self.workdir / f"{name}.log", "a")
        self.logs.append(log)
        return log

    def _start_db_sync(self):
        """``keyvrm-manage db sync`` started on a config file that names only the database (all it reads).

        keyvrm.conf names the cloud's endpoints, known only once the cloud serves.
        """
        config = self.workdir / "keyvrm-manage.conf"
        config.write_text("[database]\nconnection = %s\n" % self.db_url)
        return subprocess.Popen([str(BIN / "keyvrm-manage"), "--config-file", str(config), "db", "sync"],
                                stdout=self._log("keyvrm-manage"), stderr=subprocess.STDOUT, env=ENV)

    def _wait_db_synced(self):
        """Wait for ``db sync`` to end; it must have succeeded."""
        try:
            returncode = self.db_sync.wait(timeout=120)
        except subprocess.TimeoutExpired:
            returncode = None
        log = (self.workdir / "keyvrm-manage.log").read_text(errors="replace")
        assert returncode == 0, ("keyvrm-manage db sync", returncode, log[-2000:])

    def start_service(self, name):
        """Start ``keyvrm-api`` or ``keyvrm-engine`` on the deployment's config."""
        self.services[name] = subprocess.Popen([str(BIN / name), "--config-file", str(self.config)],
                                               stdout=self._log(name), stderr=subprocess.STDOUT, env=ENV)

    def stop_service(self, name, sig=signal.SIGTERM):
        process = self.services.pop(name)
        _terminate(process, sig)
        _reap(process)

    @property
    def credentials_file(self) -> pathlib.Path:
        """KeyVRM's fencing credentials file (``bmc`` only): each compute's BMC."""
        return self.workdir / "fencing.yaml"

    def _agent_conf(self) -> pathlib.Path:
        """The config file the hypervisors' heartbeat agents share (written once)."""
        agent_conf = self.workdir / "heartbeat-agent.conf"
        if not agent_conf.exists():
            agent_conf.write_text(textwrap.dedent(f"""\
                [heartbeat]
                sentinels = {",".join(self.sentinels.sentinels)}
                service_name = {peers.SERVICE}
                """))
        return agent_conf

    def _start_bmcs(self):
        """Each compute's BMC (its own UDP port, user and password) in the credentials file, then the farm."""
        hosts = {host: {"bmc": {"protocol": "ipmi", "address": "127.0.0.1",
                                "port": fencing_peers.free_port(socket.SOCK_DGRAM),
                                "username": "ipmi-" + host, "password": secrets.token_urlsafe(12)}}
                 for host in self.cloud.endpoints["hosts"]}
        self.credentials_file.write_text(yaml.safe_dump({"hosts": hosts}))
        self.credentials_file.chmod(0o600)
        self.bmc_credentials = {host: entry.bmc for host, entry
                                in creds.load_credentials(str(self.credentials_file)).items()}
        self.bmcs = bmc_farm.BmcFarmProcess(
            str(BIN / "python"),
            ["--credentials-file", str(self.credentials_file),
             "--endpoints-file", str(self.workdir / "cloud" / "endpoints.json"),
             "--agent-config", str(self._agent_conf()), "--log-dir", str(self.workdir)]
            + (["--farm-heartbeats"] if self.farm_heartbeats else []), self._log("bmc-farm"), ENV)

    def start_agent(self, host):
        """``keyvrm-heartbeat-agent --host HOST``, or that host's agent in the farm."""
        agent_conf = self._agent_conf()
        if self.farm_heartbeats:
            if self.farm is None:
                self.farm = heartbeat_farm.FarmProcess(str(BIN / "python"), agent_conf,
                                                       self._log("heartbeat-farm"), ENV)
            self.agents[host] = self.farm.agent(host)
            return
        self.agents[host] = subprocess.Popen(
            [str(BIN / "keyvrm-heartbeat-agent"), "--config-file", str(agent_conf), "--host", host],
            stdout=self._log(f"heartbeat-{host}"), stderr=subprocess.STDOUT, env=ENV)

    def kill_agent(self, host):
        process = self.agents.pop(host)
        if process.poll() is None:
            process.kill()
            process.wait()

    def _api_answers(self):
        try:
            return requests.get(self.api_url + "/v1/config", timeout=2).ok
        except requests.RequestException:
            return False

    # --- what an operator does ------------------------------------------------------------

    def openstack(self, *args, check=True):
        """``openstack keyvrm ARGS -f json`` against the API; the parsed output (``check=False``: the result).

        Run by the deployment's ``openstack_shell`` process, started at the first command.
        """
        command = ["--os-auth-type", "none", "--os-endpoint", self.api_url, "keyvrm", *args]
        if "-f" not in args:
            command += ["-f", "json"]
        if self.shell is None:
            self.shell = openstack_shell.ShellProcess(str(BIN / "python"), self._log("openstack-shell"), ENV)
        result = self.shell.run(command, timeout_s=120)
        if not check:
            return result
        assert result.returncode == 0, (args, result.stderr[-2000:])
        return json.loads(result.stdout) if result.stdout.strip() else None

    def api(self, path, microversion=None):
        """GET ``/v1`` + ``path``; its JSON (``microversion``: the API version to ask for, e.g. "1.1")."""
        headers = {"OpenStack-API-Version": "vm-resource-manager %s" % microversion} if microversion else {}
        response = requests.get(self.api_url + "/v1" + path, headers=headers, timeout=10)
        response.raise_for_status()
        return response.json()

    def newest_cycle(self) -> int:
        """The id of the newest cycle the API lists (0: none yet)."""
        return max([c["id"] for c in self.api("/cycles?limit=50")["cycles"]] or [0])

    def cycle_after(self, cycle_id, timeout_s, what) -> dict:
        """The first completed cycle newer than ``cycle_id``, waited for (``what``: the failure's words)."""
        return self.wait(lambda: next((c for c in self.api("/cycles?limit=10")["cycles"]
                                       if c["id"] > cycle_id and c["status"] == "completed"), None),
                         timeout_s, what)

    def kill_compute(self, host):
        """The hypervisor dies: nova-compute stops reporting and its heartbeat agent is gone.

        With ``bmc`` it loses its power (its BMC's power-off path; the BMC reads ``off``).
        Returns ``time.monotonic()`` once it is so.
        """
        if self.bmcs is not None:
            self.bmcs.command("off", host)
        else:
            self.kill_agent(host)
            self.cloud.stop_compute(host)
        return time.monotonic()

    def revive_compute(self, host):
        """The repaired hypervisor boots: nova-compute and the heartbeat agent run again (with ``bmc``: power on)."""
        if self.bmcs is not None:
            self.bmcs.command("on", host)
        else:
            self.cloud.start_compute(host)
            self.start_agent(host)

    def machine(self, verb, host) -> dict:
        """A ``bmc_farm`` command on ``host`` (``hang``, ``unreachable``, ``state``...); its state after."""
        return self.bmcs.command(verb, host)

    def wait(self, check, timeout_s, what, interval_s=0.5):
        """Poll ``check`` until truthy (its value) or fail with ``what`` and the engine log's tail."""
        try:
            return nova_helpers.wait_for(check, timeout_s, interval_s)
        except AssertionError as exc:
            tail = (self.workdir / "keyvrm-engine.log").read_text(errors="replace")[-4000:]
            raise AssertionError(f"{what}: {exc}\n--- keyvrm-engine.log (tail) ---\n{tail}") from None


def _terminate(process, sig=signal.SIGTERM):
    """Send ``sig`` to ``process`` unless it has ended."""
    if process.poll() is None:
        process.send_signal(sig)


def _reap(process, timeout_s=30):
    """Wait for a signalled ``process``; SIGKILL it if it has not ended within ``timeout_s``."""
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
