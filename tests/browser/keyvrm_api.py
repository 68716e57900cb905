"""A real keyvrm-api per simulated region, behind Keystone: ``keyvrm-demo --keep-running --api-config``.

Each process runs its own simulated region (region, engine and API in one process, by
default keyvrm-demo's scenario: a host dies at 3 min, another overloads at 4 min; RegionOne
runs browser-region.yaml beside this file) on the fast clock. The server's Python is
``KEYVRM_SERVER_PYTHON`` (by default the tox env ``py3``).
"""

import dataclasses
import json
import os
import subprocess

from tests.browser import identity
from tests.browser import processes

HERE = os.path.dirname(os.path.abspath(__file__))
# LB recommendations wait for an operator, so a manual one can be run from the panel; its
# timeout (minutes) is far beyond any run, whatever the clock's speed.
MANUAL_LB = {"lb_recommendations_auto_run": False, "executor_manual_action_timeout": 604800}


@dataclasses.dataclass(frozen=True)
class KeyvrmApi:
    """A running keyvrm-api: its region, URL and process."""

    region: str
    url: str
    process: subprocess.Popen


def server_python() -> str:
    """The Python interpreter the KeyVRM server is installed for."""
    default = os.path.join(HERE, "..", "..", ".tox", "py3", "bin", "python")
    return os.path.abspath(os.environ.get("KEYVRM_SERVER_PYTHON", default))


def _write_api_config(workdir, keystone_url) -> str:
    path = os.path.join(workdir, "keyvrm-api.conf")
    with open(path, "w", encoding="utf-8") as conf:
        conf.write("[api]\nauth_strategy = keystone\n[keystone_authtoken]\n"
                   "www_authenticate_uri = %s\nauth_url = %s\n" % (keystone_url, keystone_url)
                   + "auth_type = password\nusername = admin\npassword = %s\n" % identity.ADMIN_PASSWORD
                   + "project_name = admin\nuser_domain_id = default\nproject_domain_id = default\n"
                   "interface = public\n")
    return path


def start(workdir, region, keystone_url, log, hosts=None, scenario=None, speed=60.0, aggregates=None) -> KeyvrmApi:
    """keyvrm-demo serving ``region`` in ``workdir``, its API behind Keystone.

    ``scenario`` is a scenario YAML file (default: keyvrm-demo's own), ``hosts`` the region's
    size (default: the scenario's), ``speed`` simulated seconds per wall second, ``aggregates``
    business config per aggregate name beside the demo's own.
    """
    os.makedirs(workdir, exist_ok=True)
    business = os.path.join(workdir, "business.yaml")
    with open(business, "w", encoding="utf-8") as handle:
        json.dump({"app": MANUAL_LB, "aggregates": aggregates or {}}, handle)  # JSON is YAML
    port = processes.free_port()
    python = server_python()
    demo = os.path.join(os.path.dirname(python), "keyvrm-demo")
    argv = [demo, *([scenario] if scenario else []), "--keep-running", "--json", "--speed", str(speed),
            *(["--hosts", str(hosts)] if hosts else []), "--state-path", workdir, "--config", business,
            "--api-config", _write_api_config(workdir, keystone_url), "--api-port", str(port)]
    process = processes.spawn(argv, dict(os.environ, KEYVRM_STATE_PATH=workdir), log)
    url = "http://127.0.0.1:%d" % port
    processes.wait_http(url + "/", process)
    return KeyvrmApi(region=region, url=url, process=process)
