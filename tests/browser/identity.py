"""A real Keystone on SQLite for the browser tests and tools/horizon-demo.sh: set up, served, populated.

Keystone runs from ``KEYVRM_KEYSTONE_PYTHON``, by default the Python running the tests
(the tox env ``browser`` installs Keystone beside Horizon: their pins agree).
"""

import dataclasses
import grp
import json
import os
import pwd
import subprocess
import sys
import urllib.error
import urllib.request

from tests.browser import processes

HERE = os.path.dirname(os.path.abspath(__file__))
ADMIN_PASSWORD = "keyvrm-admin"
READER_PASSWORD = "keyvrm-reader"


@dataclasses.dataclass(frozen=True)
class Keystone:
    """A running Keystone: its URL and the process serving it."""

    url: str
    process: subprocess.Popen


def keystone_python() -> str:
    """The Python interpreter Keystone is installed for."""
    return os.environ.get("KEYVRM_KEYSTONE_PYTHON", sys.executable)


def _write_config(workdir) -> str:
    path = os.path.join(workdir, "keystone.conf")
    with open(path, "w", encoding="utf-8") as conf:
        conf.write("[database]\nconnection = sqlite:///%s\n" % os.path.join(workdir, "keystone.sqlite")
                   + "[fernet_tokens]\nkey_repository = %s\n" % os.path.join(workdir, "fernet")
                   + "[fernet_receipts]\nkey_repository = %s\n" % os.path.join(workdir, "fernet")
                   + "[credential]\nkey_repository = %s\n" % os.path.join(workdir, "credential")
                   + "[oslo_policy]\nenforce_new_defaults = true\nenforce_scope = true\n")
    return path


def _manage(python, config, *args):
    manage = os.path.join(os.path.dirname(python), "keystone-manage")
    subprocess.run([manage, "--config-file", config, *args], check=True, capture_output=True)


def start(workdir, log) -> Keystone:
    """Set up Keystone in ``workdir`` (db_sync, fernet and credential keys, bootstrap) and serve it."""
    python = keystone_python()
    config = _write_config(workdir)
    port = processes.free_port()
    url = "http://127.0.0.1:%d/v3" % port
    user = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    _manage(python, config, "db_sync")
    for keys in ("fernet_setup", "credential_setup"):
        _manage(python, config, keys, "--keystone-user", user, "--keystone-group", group)
    _manage(python, config, "bootstrap", "--bootstrap-password", ADMIN_PASSWORD,
            "--bootstrap-public-url", url, "--bootstrap-region-id", "RegionOne")
    env = dict(os.environ, OS_KEYSTONE_CONFIG_FILES=config)
    process = processes.spawn([python, os.path.join(HERE, "keystone_wsgi.py"), "127.0.0.1", str(port)],
                              env, log)
    processes.wait_http(url, process)
    return Keystone(url=url, process=process)


class Admin:
    """Keystone's v3 API as the bootstrap admin (project-scoped to the admin project)."""

    def __init__(self, url):
        self.url = url
        self.token = self._token()

    def _token(self):
        body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
            "name": "admin", "domain": {"id": "default"}, "password": ADMIN_PASSWORD}}},
            "scope": {"project": {"name": "admin", "domain": {"id": "default"}}}}}
        request = urllib.request.Request(self.url + "/auth/tokens", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.headers["X-Subject-Token"]

    def call(self, method, path, body=None) -> dict:
        """The JSON answer of ``method path`` (an empty dict for 204)."""
        request = urllib.request.Request(self.url + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Content-Type": "application/json",
                                                  "X-Auth-Token": self.token})
        with urllib.request.urlopen(request, timeout=30) as reply:
            text = reply.read()
        return json.loads(text) if text else {}

    def find(self, collection, name) -> str:
        """The id of the ``collection`` member called ``name``."""
        return self.call("GET", "/%s?name=%s" % (collection, name))[collection][0]["id"]


def populate(url, region_endpoints: dict) -> None:
    """Regions, the ``vm-resource-manager`` service with one public endpoint per region, a reader user.

    ``region_endpoints`` maps a region id to the KeyVRM API URL serving it. The reader has
    the ``reader`` role on the admin project (KeyVRM's reader persona with admin-project scope).
    """
    admin = Admin(url)
    existing = {region["id"] for region in admin.call("GET", "/regions")["regions"]}
    for region in region_endpoints:
        if region not in existing:
            admin.call("POST", "/regions", {"region": {"id": region}})
    service = admin.call("POST", "/services", {"service": {"type": "vm-resource-manager", "name": "keyvrm"}})
    for region, endpoint in region_endpoints.items():
        admin.call("POST", "/endpoints", {"endpoint": {
            "service_id": service["service"]["id"], "interface": "public", "region_id": region, "url": endpoint}})
    project = admin.find("projects", "admin")
    reader = admin.call("POST", "/users", {"user": {"name": "reader", "password": READER_PASSWORD,
                                                    "domain_id": "default", "default_project_id": project}})
    role = admin.find("roles", "reader")
    admin.call("PUT", "/projects/%s/users/%s/roles/%s" % (project, reader["user"]["id"], role))


def password_token(url, user, password) -> str:
    """A token of ``user`` scoped to the admin project."""
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": "admin", "domain": {"id": "default"}}}}}
    request = urllib.request.Request(url + "/auth/tokens", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.headers["X-Subject-Token"]
    except urllib.error.HTTPError as exc:
        sys.stderr.write(exc.read().decode())
        raise


def add_region(url, region, endpoint) -> str:
    """``region`` added with a public ``vm-resource-manager`` endpoint at ``endpoint``; returns the endpoint's id.

    For a region started after ``populate`` (a test module's own); users who log in afterwards see it.
    """
    admin = Admin(url)
    if region not in {known["id"] for known in admin.call("GET", "/regions")["regions"]}:
        admin.call("POST", "/regions", {"region": {"id": region}})
    service = admin.call("GET", "/services?type=vm-resource-manager")["services"][0]
    return admin.call("POST", "/endpoints", {"endpoint": {
        "service_id": service["id"], "interface": "public", "region_id": region, "url": endpoint}})["endpoint"]["id"]


def remove_endpoint(url, endpoint_id) -> None:
    """The endpoint ``endpoint_id`` (of ``add_region``) deleted from the catalog."""
    Admin(url).call("DELETE", "/endpoints/%s" % endpoint_id)
