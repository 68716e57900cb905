"""keyvrm-api as devstack deploys it: uWSGI serving ``keyvrm.api.wsgi:application``, without eventlet."""

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
import requests

from keyvrm.db import api as db_api
from keyvrm.db import migration
from tests.functional.api import test_keyvrm_api_command as api_command

UWSGI = shutil.which("uwsgi", path=os.path.dirname(sys.executable)) or shutil.which("uwsgi")


def _wait_for_app(url, timeout_s=90):
    """The first answer at ``url``: uWSGI binds its socket at once, the app answers once loaded."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return requests.get(url, timeout=10)
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.mark.skipif(UWSGI is None, reason="uwsgi is not installed (tox -e functional installs it)")
def test_keyvrm_api_under_uwsgi_answers_healthcheck_and_an_authenticated_call(tmp_path):
    db_url = "sqlite:///%s/keyvrm.sqlite" % tmp_path
    db = db_api.Database(db_url)
    migration.upgrade(db.engine)
    db.dispose()
    config = tmp_path / "keyvrm.conf"
    config.write_text("[api]\nauth_strategy = noauth\n[database]\nconnection = %s\n" % db_url)
    port = api_command._free_port()
    log = tmp_path / "uwsgi.log"
    process = subprocess.Popen(
        [UWSGI, "--http-socket", "127.0.0.1:%d" % port, "--module", "keyvrm.api.wsgi:application",
         "--master", "--processes", "1", "--threads", "4", "--enable-threads", "--need-app",
         "--die-on-term", "--home", sys.prefix, "--logto", str(log)],
        env=dict(os.environ, KEYVRM_CONFIG_FILE=str(config)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = "http://127.0.0.1:%d" % port
        assert _wait_for_app(base + "/healthcheck").status_code == 200
        # noauth: the caller's identity and roles come in the headers keystonemiddleware would set
        headers = {"X-User-Id": "admin", "X-Project-Id": "admin", "X-Roles": "admin"}
        changed = requests.patch(base + "/v1/config", json={"period": 120}, headers=headers, timeout=10)
        assert changed.status_code == 200, changed.text
        assert requests.get(base + "/v1/config", headers=headers, timeout=10).json()["config"]["period"] == 120
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    text = log.read_text(errors="replace")
    assert "Eventlet is deprecated" not in text and "eventlet" not in text.lower(), text[-2000:]
