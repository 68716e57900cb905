"""`keyvrm-demo --keep-running` leaves a REST API the real `openstack keyvrm` CLI can read."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

BIN = os.path.dirname(sys.executable)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_line(path, text, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if text in path.read_text():
            return
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not printed within {timeout_s} s:\n{path.read_text()}")


def test_openstack_keyvrm_aggregate_list_reads_the_demo_api(tmp_path):
    port = _free_port()
    log = tmp_path / "demo.log"
    with open(log, "w") as out:
        demo = subprocess.Popen(
            [os.path.join(BIN, "keyvrm-demo"), "--hosts", "10", "--speed", "120", "--duration", "420",
             "--state-path", str(tmp_path / "state"), "--keep-running", "--api-port", str(port)],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_line(log, "Ctrl-C stops", 180)
        listed = subprocess.run(
            [os.path.join(BIN, "openstack"), "--os-auth-type", "none", "--os-endpoint",
             f"http://127.0.0.1:{port}", "keyvrm", "aggregate", "list", "-f", "json"],
            capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONWARNINGS="ignore"))
        assert listed.returncode == 0, listed.stderr
        rows = json.loads(listed.stdout)
        assert sorted(r["name"] for r in rows) == ["agg-001", "agg-002"]
    finally:
        demo.send_signal(signal.SIGINT)
        assert demo.wait(60) == 0, log.read_text()
