"""Start the fake cloud process, read its endpoints, drive its control endpoint, stop it."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import requests

SERVER = pathlib.Path(__file__).with_name("server.py")
ROOT = SERVER.parents[2]  # the server imports tests.fakecloud modules from here


class FakeCloudError(Exception):
    """The fake cloud did not start or refused a control request."""


class FakeCloud:
    """A running fake cloud: ``endpoints`` (its published JSON) and control calls."""

    def __init__(self, process, endpoints, log_path):
        self.process = process
        self.endpoints = endpoints
        self.log_path = log_path

    @property
    def control_url(self) -> str:
        """The URL of the control endpoint, as the cloud published it."""
        return self.endpoints["control_url"]

    @property
    def service_endpoints(self) -> dict:
        """Service type -> URL, as the driver's ``from_endpoints`` takes them."""
        return {"compute": self.endpoints["compute_url"],
                "placement": self.endpoints["placement_url"],
                "image": self.endpoints["image_url"]}

    def keyvrm_conf(self, *, state_path, db_url, api_port, tsdb_url) -> str:
        """The sections of ``keyvrm.conf`` that say where things are, as the README's deployment writes them.

        [DEFAULT] ``state_path``, [database], a noauth [api] on ``api_port``, an [engine] RPC
        topic of its own (several deployments share one RabbitMQ), [cloud] on this cloud's
        endpoints without Keystone (``auth_type = none``) and [metrics]; every other option at
        its shipped default. The caller appends its [heartbeat] and any other section.
        """
        return textwrap.dedent(f"""\
            [DEFAULT]
            state_path = {state_path}
            transport_url = rabbit://guest:guest@127.0.0.1:5672/
            [database]
            connection = {db_url}
            [api]
            host = 127.0.0.1
            port = {api_port}
            auth_strategy = noauth
            [engine]
            rpc_topic = keyvrm-engine-{uuid.uuid4().hex[:8]}
            [cloud]
            auth_type = none
            compute_endpoint_override = {self.endpoints["compute_url"]}
            placement_endpoint_override = {self.endpoints["placement_url"]}
            image_endpoint_override = {self.endpoints["image_url"]}
            [metrics]
            url = {tsdb_url}
            """)

    def control(self, method, path, body=None, timeout_s=120.0):
        """One control request; returns its JSON answer."""
        response = requests.request(method, self.control_url + path, json=body, timeout=timeout_s)
        if response.status_code != 200:
            raise FakeCloudError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json()

    def stop_compute(self, host):
        """The compute service of ``host`` stops (a hypervisor crash)."""
        return self.control("POST", f"/computes/{host}/stop")

    def start_compute(self, host):
        """The compute service of ``host`` comes back with its servers."""
        return self.control("POST", f"/computes/{host}/start")

    def stopped_computes(self) -> list:
        """The hosts whose compute service is stopped, sorted."""
        return self.control("GET", "/health")["stopped"]

    def add_computes(self, count, timeout_s=None):
        """Start ``count`` more computes (~0.1-0.2 s each); returns their host names."""
        return self.control("POST", "/computes", {"count": count},
                            timeout_s=timeout_s or 60.0 + count)["hosts"]

    def stall_live_migrations(self, host, stall=True):
        """Live migrations from ``host`` never finish (or finish again)."""
        return self.control("POST", f"/computes/{host}/stall-live-migrations", {"stall": stall})

    def hold_rebuilds(self, host, hold=True):
        """Rebuilds reaching ``host`` wait, ``accepted``, until released; a stop drops them (or release them)."""
        return self.control("POST", f"/computes/{host}/hold-rebuilds", {"hold": hold})

    def compute_rpc_calls(self) -> list:
        """RPC messages the Nova API has sent to computes while serving requests, oldest first."""
        return self.control("GET", "/compute-rpc")["calls"]

    def fault(self, status):
        """The compute API answers ``status`` to everything (None: normal again)."""
        return self.control("POST", "/fault", {"status": status})

    def stop(self):
        """Stop the process (by its PID) and wait for it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def attach(endpoints_file) -> FakeCloud:
    """The control calls of a fake cloud another process started (``stop`` is not for this one)."""
    return FakeCloud(None, json.loads(pathlib.Path(endpoints_file).read_text()), None)


def start(workdir, computes=5, python=None, timeout_s=180.0, nova_timers=None) -> FakeCloud:
    """Start a fake cloud with ``computes`` computes in ``workdir``; returns once it serves.

    ``nova_timers``: ``(service_down_time, report_interval)`` in seconds (default: the
    server's short test timers; Nova's own defaults are (60, 10)).
    """
    return launch(workdir, computes, python, timeout_s, nova_timers).wait()


def launch(workdir, computes=5, python=None, timeout_s=180.0, nova_timers=None) -> "Booting":
    """Start the fake cloud process as ``start`` does, but return at once: ``wait`` for it to serve.

    The caller starts what does not need the cloud while the cloud sets itself up.
    """
    workdir = pathlib.Path(workdir)
    endpoints_file = workdir / "endpoints.json"
    log_path = workdir / "fakecloud.log"
    env = dict(os.environ, PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))))
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [python or sys.executable, str(SERVER), "--computes", str(computes),
             "--endpoints-file", str(endpoints_file)]
            + (["--service-down-time", str(nova_timers[0]), "--report-interval", str(nova_timers[1])]
               if nova_timers else []),
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(workdir))
    return Booting(process, endpoints_file, log_path, time.monotonic() + timeout_s)


class Booting:
    """A fake cloud process that is setting itself up: ``wait`` for it, or ``stop`` it."""

    def __init__(self, process, endpoints_file, log_path, deadline_s):
        self.process = process
        self.endpoints_file = endpoints_file
        self.log_path = log_path
        self.deadline_s = deadline_s

    def wait(self) -> FakeCloud:
        """The cloud once it has published its endpoints; FakeCloudError if it exits or the deadline passes."""
        while not self.endpoints_file.exists():
            if self.process.poll() is not None or time.monotonic() > self.deadline_s:
                if self.process.poll() is None:
                    self.process.kill()
                tail = self.log_path.read_text(errors="replace")[-3000:]
                raise FakeCloudError(f"fake cloud did not start (rc {self.process.poll()}):\n{tail}")
            time.sleep(0.2)
        return FakeCloud(self.process, json.loads(self.endpoints_file.read_text()), self.log_path)

    def stop(self):
        """Stop the process, whether it serves yet or not."""
        FakeCloud(self.process, {}, self.log_path).stop()
