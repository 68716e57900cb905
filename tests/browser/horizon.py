"""Horizon with the KeyVRM plugin served by Django's runserver on loopback (settings: horizon_settings)."""

import dataclasses
import os
import subprocess
import sys

from tests.browser import processes

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@dataclasses.dataclass(frozen=True)
class Horizon:
    """A running Horizon: its URL and the process serving it."""

    url: str
    process: subprocess.Popen


def start(workdir, keystone_url, log) -> Horizon:
    """Horizon on a free port, talking to ``keystone_url``, writing only inside ``workdir``."""
    os.makedirs(workdir, exist_ok=True)
    port = processes.free_port()
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="tests.browser.horizon_settings",
               KEYVRM_HORIZON_DIR=workdir, KEYVRM_HORIZON_KEYSTONE_URL=keystone_url,
               PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])))
    argv = [sys.executable, "-m", "django", "runserver", "127.0.0.1:%d" % port, "--noreload", "--insecure"]
    process = processes.spawn(argv, env, log)
    url = "http://127.0.0.1:%d" % port
    processes.wait_http(url + "/auth/login/", process, timeout_s=600.0)  # the first page compiles the SCSS
    return Horizon(url=url, process=process)
