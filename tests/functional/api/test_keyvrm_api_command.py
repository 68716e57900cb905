"""The `keyvrm-api` console script serves the API (cheroot) from a config file and stops on SIGTERM."""

import os
import signal
import socket
import subprocess
import sys
import time

import requests

from keyvrm.db import api as db_api
from keyvrm.db import migration

KEYVRM_API = os.path.join(os.path.dirname(sys.executable), "keyvrm-api")


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(url, timeout_s=30):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            return requests.get(url, timeout=2)
        except requests.ConnectionError:
            time.sleep(0.1)
    raise AssertionError("keyvrm-api did not answer at %s" % url)


def test_keyvrm_api_serves_and_stops_on_sigterm(tmp_path):
    db_url = "sqlite:///%s/keyvrm.sqlite" % tmp_path
    db = db_api.Database(db_url)
    migration.upgrade(db.engine)
    db.dispose()
    port = _free_port()
    config = tmp_path / "keyvrm.conf"
    config.write_text("[api]\nhost = 127.0.0.1\nport = %d\nauth_strategy = noauth\n"
                      "[database]\nconnection = %s\n" % (port, db_url))
    process = subprocess.Popen([KEYVRM_API, "--config-file", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    try:
        base = "http://127.0.0.1:%d" % port
        assert _wait_for(base + "/healthcheck").status_code == 200
        config_response = requests.get(base + "/v1/config", timeout=5)
        assert config_response.status_code == 200 and config_response.json()["config"]["period"] == 60
        assert config_response.headers["x-openstack-request-id"].startswith("req-")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0, process.stderr.read().decode()[-2000:]
