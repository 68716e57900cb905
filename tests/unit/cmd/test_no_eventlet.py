"""Entry points keep eventlet out: importing the WSGI module or a console script never imports it."""

import subprocess
import sys

import pytest

CHECK = """
import sys
import {module}
loaded = sys.modules.get("eventlet")
print("eventlet imported" if loaded is not None else "no eventlet")
"""


@pytest.mark.parametrize("module", ["keyvrm.api.wsgi", "keyvrm.cmd.engine", "keyvrm.cmd.api"])
def test_an_entry_point_never_imports_eventlet(module, tmp_path):
    config = tmp_path / "keyvrm.conf"
    config.write_text("[api]\nauth_strategy = noauth\n[database]\nconnection = sqlite:///%s/k.sqlite\n" % tmp_path)
    done = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True,
                          env={"KEYVRM_CONFIG_FILE": str(config), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "no eventlet"
    assert "Eventlet is deprecated" not in done.stderr
