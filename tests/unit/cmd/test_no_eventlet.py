"""KeyVRM's commands run on native threads: eventlet is never imported, no banner is printed."""

import subprocess
import sys

COMMANDS = ("api", "engine", "demo", "manage", "sim", "heartbeat_agent")
PROBE = """
import sys
import warnings
warnings.simplefilter("always")
for name in %r:
    __import__("keyvrm.cmd." + name)
import oslo_messaging
from oslo_service import backend
from keyvrm.engine import manager, service
print(bool(sys.modules.get("eventlet")), backend.get_backend_type().value)
""" % (COMMANDS,)


def test_no_command_imports_eventlet_and_oslo_service_runs_on_threads():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "threading"]
    assert "Eventlet" not in done.stderr
