"""A real keyvrm-api per simulated region, behind Keystone: ``keyvrm-demo --keep-running --api-config``.

Each process runs its own simulated region (region, engine and API in one process, the
demo scenario: a host dies at 3 min, another overloads at 4 min) on the fast clock. The
server's Python is ``KEYVRM_SERVER_PYTHON`` (by default the tox env ``py3``).
"""

import dataclasses
import os
import subprocess

from tests.browser import identity
from tests.browser import processes

HERE = os.path.dirname(os.path.abspath(__file__))
# LB recommendations wait for an operator, so a manual one can be run from the panel; at 60x
# the default 30 min before an unstarted one is cancelled would pass in 30 s, so wait a week.
MANUAL_LB = "app:\n  lb_recommendations_auto_run: false\n  executor_manual_action_timeout: 604800\n"


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


def start(workdir, region, keystone_url, hosts, log) -> KeyvrmApi:
    """keyvrm-demo serving ``region`` (``hosts`` hypervisors) in ``workdir``, its API behind Keystone."""
    os.makedirs(workdir, exist_ok=True)
    business = os.path.join(workdir, "business.yaml")
    with open(business, "w", encoding="utf-8") as handle:
        handle.write(MANUAL_LB)
    port = processes.free_port()
    python = server_python()
    demo = os.path.join(os.path.dirname(python), "keyvrm-demo")
    argv = [demo, "--keep-running", "--json", "--hosts", str(hosts), "--state-path", workdir,
            "--config", business, "--api-config", _write_api_config(workdir, keystone_url),
            "--api-port", str(port)]
    process = processes.spawn(argv, dict(os.environ, KEYVRM_STATE_PATH=workdir), log)
    url = "http://127.0.0.1:%d" % port
    processes.wait_http(url + "/", process)
    return KeyvrmApi(region=region, url=url, process=process)
