"""The client and `openstack keyvrm` install and import on a workstation without KeyVRM's server."""

import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
SERVER_ONLY = ("keyvrm", "oslo_db", "oslo_messaging", "taskflow", "tooz", "eventlet", "matplotlib", "pyghmi",
               "sushy", "sqlalchemy", "alembic", "redis")
PROBE = """
import importlib, importlib.abc, pkgutil, sys

class RefuseServer(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in %r:
            raise ImportError("the client imported a server dependency: " + name)

sys.meta_path.insert(0, RefuseServer())
import keyvrmclient.v1
import keyvrmclient.osc.plugin
import keyvrmclient.osc.v1 as commands
for module in pkgutil.iter_modules(commands.__path__):
    importlib.import_module("keyvrmclient.osc.v1." + module.name)
print("imported")
""" % (SERVER_ONLY,)


def _requirements(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return {re.split(r"[<>=!;\s\[]", line.strip())[0].lower().replace("-", "_").replace(".", "_")
                for line in handle if line.strip() and not line.startswith("#")}


def test_every_client_module_imports_with_the_server_libraries_refused():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_the_client_and_dashboard_distributions_require_none_of_the_servers_libraries():
    server = _requirements("requirements.txt") - {"pbr", "keystoneauth1", "requests", "pyyaml"}
    for distribution in ("client/requirements.txt", "dashboard/requirements.txt"):
        assert not _requirements(distribution) & server, distribution
    assert _requirements("client/requirements.txt") == {"pbr", "keystoneauth1", "osc_lib"}
