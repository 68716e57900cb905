"""devstack/plugin.sh run by bash against a stubbed devstack: the keyvrm.conf it writes and the services it defines.

The stub (devstack_stub.sh) writes real ini files for iniset and the devstack helpers built
on it, and records every other call. Every option in the generated keyvrm.conf must be one
KeyVRM reads (its own groups, the library namespaces of its sample config, the options of
the keystoneauth plugin an ``auth_type`` names) with a value its type accepts.
"""

import ast
import collections
import configparser
import functools
import importlib.metadata
import importlib.util
import os
import pathlib
import pwd
import subprocess
import warnings

from keystoneauth1 import loading as ks_loading
import pytest

from keyvrm.conf import opts as keyvrm_opts

REPO = pathlib.Path(__file__).resolve().parents[3]
STUB = pathlib.Path(__file__).with_name("devstack_stub.sh")
SETTINGS = REPO / "devstack" / "settings"
PLUGIN = REPO / "devstack" / "plugin.sh"
GENERATOR_CONF = REPO / "etc" / "keyvrm" / "keyvrm-config-generator.conf"

DEVSTACK_VARIABLES = {
    "SERVICE_HOST": "192.0.2.10",
    "SERVICE_PROTOCOL": "http",
    "REGION_NAME": "RegionTwo",
    "SERVICE_PASSWORD": "s3rvice",
    "SERVICE_DOMAIN_NAME": "Default",
    "SERVICE_PROJECT_NAME": "service",
    "KEYSTONE_SERVICE_URI": "http://192.0.2.10/identity",
    "BASE_SQL_CONN": "mysql+pymysql://root:dbpass@127.0.0.1",
    "RABBIT_USERID": "stackrabbit",
    "RABBIT_PASSWORD": "rabbitpass",
    "RABBIT_HOST": "192.0.2.10",
    "MEMCACHE_SERVERS": "localhost:11211",
    "SSL_BUNDLE_FILE": "/opt/stack/data/ca-bundle.pem",
    "ENABLE_DEBUG_LOG_LEVEL": "True",
    "LOG_COLOR": "False",
    "API_WORKERS": "2",
}
EXPECTED_URL = "http://192.0.2.10/vm-resource-manager"


class Devstack:
    """One stubbed devstack: its directories, environment and what the plugin did in it."""

    def __init__(self, tmp_path):
        self.root = tmp_path
        self.dest = tmp_path / "opt-stack"
        self.bin = tmp_path / "bin"
        self.log = tmp_path / "calls.log"
        self.conf_dir = tmp_path / "etc-keyvrm"
        self.horizon = self.dest / "horizon"
        for directory in (self.dest, self.bin, self.horizon):
            directory.mkdir(parents=True)
        for command in ("uwsgi", "keyvrm-manage"):
            script = self.bin / command
            script.write_text('#!/bin/sh\necho "%s $*" >> "%s"\n' % (command, tmp_path / "commands.log"))
            script.chmod(0o755)
        self.env = dict(DEVSTACK_VARIABLES,
                        PATH="%s:%s" % (self.bin, os.environ["PATH"]), HOME=str(tmp_path),
                        DEST=str(self.dest), DATA_DIR=str(tmp_path / "data"),
                        HORIZON_DIR=str(self.horizon), STACK_USER=_user(),
                        STUB_LOG=str(self.log), STUB_BIN=str(self.bin),
                        ENABLED_SERVICES="key,mysql,rabbit,n-api,n-cpu,placement-api",
                        KEYVRM_DIR=str(REPO), KEYVRM_CONF_DIR=str(self.conf_dir))

    @property
    def conf_file(self):
        return self.conf_dir / "keyvrm.conf"

    def run(self, *phases, check=True, after_settings="", **variables):
        """Source the stub and settings, then plugin.sh once per phase ("stack post-config")."""
        script = ["set -o errexit", 'source "%s"' % STUB, 'source "%s"' % SETTINGS, after_settings]
        script += ['source "%s" %s' % (PLUGIN, phase) for phase in phases]
        result = subprocess.run(["bash", "-c", "\n".join(script)], env=dict(self.env, **variables),
                                capture_output=True, text=True, timeout=30)
        if check:
            assert result.returncode == 0, result.stderr
        return result

    def calls(self, name):
        """The recorded calls of stub function ``name``, each as its list of arguments."""
        if not self.log.exists():
            return []
        lines = self.log.read_text().splitlines()
        return [line.split("\x1f")[1:] for line in lines if line.split("\x1f")[0] == name]

    def commands(self):
        path = self.root / "commands.log"
        return path.read_text().splitlines() if path.exists() else []

    def conf(self):
        return read_ini(self.conf_file)


def _user():
    return pwd.getpwuid(os.getuid()).pw_name


def read_ini(path):
    """{section: {option: value}}, [DEFAULT] an ordinary section; duplicates refused."""
    parser = configparser.RawConfigParser(default_section="__no_default__", strict=True,
                                          interpolation=None)
    parser.read(path)
    return {section: dict(parser.items(section)) for section in parser.sections()}


def _group_name(group):
    if group is None:
        return "DEFAULT"
    return group if isinstance(group, str) else group.name


@functools.lru_cache(maxsize=1)
def known_options():
    """{group: {option name: Opt}} of KeyVRM and the library namespaces of its sample config."""
    namespaces = {line.split("=", 1)[1].strip() for line in GENERATOR_CONF.read_text().splitlines()
                  if line.replace(" ", "").startswith("namespace=")}
    listed = list(keyvrm_opts.list_opts())
    with warnings.catch_warnings():
        # importing the libraries' option modules imports the libraries (oslo.messaging pulls
        # futurist, which imports eventlet when it is installed): not KeyVRM's warnings
        warnings.simplefilter("ignore")
        for entry_point in importlib.metadata.entry_points(group="oslo.config.opts"):
            if entry_point.name in namespaces - {"keyvrm"}:
                listed.extend(entry_point.load()())
    known = collections.defaultdict(dict)
    for group, opts in listed:
        for opt in opts:
            known[_group_name(group)][opt.dest] = opt
    return known


def unknown_or_invalid_options(conf, known=None):
    """Each "[group] option: why" of ``conf`` that KeyVRM would not read as written."""
    known = known_options() if known is None else known
    problems = []
    for section, options in conf.items():
        group = dict(known.get(section, {}))
        if "auth_type" in options:
            plugin_opts = ks_loading.get_auth_plugin_conf_options(options["auth_type"])
            group.update({opt.dest: opt for opt in plugin_opts})
        for name, value in options.items():
            opt = group.get(name.replace("-", "_"))
            if opt is None:
                problems.append("[%s] %s: no such option" % (section, name))
                continue
            try:
                opt.type(value)
            except ValueError as exc:
                problems.append("[%s] %s = %r: %s" % (section, name, value, exc))
    return problems


@pytest.fixture
def devstack(tmp_path):
    return Devstack(tmp_path)


@pytest.fixture(scope="module")
def stacked(tmp_path_factory):
    """One devstack through install, post-config and extra, for the tests that only read it."""
    devstack = Devstack(tmp_path_factory.mktemp("stacked"))
    devstack.run("stack install", "stack post-config", "stack extra",
                 KEYVRM_TSDB_URL="http://192.0.2.20:8428", KEYVRM_EXTRAS="ipmi,redfish")
    return devstack


def test_every_option_written_is_one_keyvrm_reads_with_a_valid_value(stacked):
    assert unknown_or_invalid_options(stacked.conf()) == []


def test_the_check_refuses_an_option_keyvrm_does_not_have():
    conf = {"metrics": {"url": "http://tsdb:8428", "tsdb_url": "http://tsdb:8428"},
            "heartbeat": {"driver": "zookeeper"}, "nosuchgroup": {"x": "1"}}
    assert sorted(p.split(":")[0] for p in unknown_or_invalid_options(conf)) == [
        "[heartbeat] driver = 'zookeeper'", "[metrics] tsdb_url", "[nosuchgroup] x"]


def test_keyvrm_conf_takes_its_values_from_devstack_variables(stacked):
    conf = stacked.conf()
    assert conf["DEFAULT"]["transport_url"] == "rabbit://stackrabbit:rabbitpass@192.0.2.10:5672/"
    assert conf["DEFAULT"]["state_path"] == str(stacked.root / "data" / "keyvrm")
    assert conf["database"]["connection"] == "mysql+pymysql://root:dbpass@127.0.0.1/keyvrm?charset=utf8"
    assert conf["api"]["auth_strategy"] == "keystone"
    assert conf["keystone_authtoken"]["username"] == "keyvrm"
    assert conf["keystone_authtoken"]["www_authenticate_uri"] == "http://192.0.2.10/identity"
    assert {k: conf["cloud"][k] for k in ("auth_type", "auth_url", "username", "password", "project_name",
                                          "user_domain_name", "project_domain_name", "region_name",
                                          "interface")} == {
        "auth_type": "password", "auth_url": "http://192.0.2.10/identity", "username": "keyvrm",
        "password": "s3rvice", "project_name": "service", "user_domain_name": "Default",
        "project_domain_name": "Default", "region_name": "RegionTwo", "interface": "public"}
    assert conf["harvest"] == {"cloud_driver": "openstack", "region_name": "RegionTwo"}
    assert conf["metrics"] == {"driver": "prometheus", "url": "http://192.0.2.20:8428"}
    assert conf["heartbeat"] == {"driver": "redis", "redis_url": "redis://127.0.0.1:6379/0"}
    assert conf["engine"] == {"coordination_url": "redis://127.0.0.1:6379/0",
                              "jobboard_url": "redis://127.0.0.1:6379/0"}


def test_sentinels_given_heartbeats_go_through_them(devstack):
    devstack.run("stack post-config", KEYVRM_SENTINELS="192.0.2.31:26379,192.0.2.32:26379",
                 KEYVRM_SENTINEL_SERVICE_NAME="hb", KEYVRM_REDIS_PASSWORD="rpw",
                 KEYVRM_SENTINEL_PASSWORD="spw", KEYVRM_COORDINATION_URL="", KEYVRM_JOBBOARD_URL="")
    conf = devstack.conf()
    assert conf["heartbeat"] == {"driver": "sentinel", "sentinels": "192.0.2.31:26379,192.0.2.32:26379",
                                 "service_name": "hb", "password": "rpw", "sentinel_password": "spw"}
    assert "engine" not in conf
    assert unknown_or_invalid_options(conf) == []


def test_without_redis_or_sentinels_the_stack_stops_with_a_message(devstack):
    result = devstack.run("stack post-config", check=False, KEYVRM_REDIS_URL="")
    assert result.returncode != 0
    assert "KEYVRM_REDIS_URL or KEYVRM_SENTINELS" in result.stderr


def test_service_user_and_endpoints_of_vm_resource_manager_in_the_region(stacked):
    assert stacked.calls("create_service_user") == [["keyvrm", "admin"]]
    [service] = stacked.calls("get_or_create_service")
    assert service[:2] == ["keyvrm", "vm-resource-manager"]
    assert stacked.calls("get_or_create_endpoint") == [
        ["vm-resource-manager", "RegionTwo", EXPECTED_URL, "", EXPECTED_URL]]


def test_keyvrm_api_runs_under_uwsgi_behind_the_service_path(stacked):
    uwsgi_conf = stacked.conf_dir / "keyvrm-api-uwsgi.ini"
    assert stacked.calls("write_uwsgi_config") == [
        [str(uwsgi_conf), "keyvrm.api.wsgi:application", "/vm-resource-manager", "", "keyvrm-api"]]
    uwsgi = read_ini(uwsgi_conf)["uwsgi"]
    assert uwsgi["env"] == "KEYVRM_CONFIG_FILE=%s" % stacked.conf_file
    module, attribute = uwsgi["module"].split(":")
    spec = importlib.util.find_spec(module)
    assigned = {target.id for node in ast.parse(pathlib.Path(spec.origin).read_text()).body
                if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)}
    assert attribute in assigned
    assert ["keyvrm-api", "%s --procname-prefix keyvrm-api --ini %s" % (stacked.bin / "uwsgi", uwsgi_conf)] \
        in stacked.calls("run_process")


def test_extra_creates_the_schema_and_starts_the_engine_on_the_config(stacked):
    assert stacked.calls("recreate_database") == [["keyvrm"]]
    assert stacked.commands() == ["keyvrm-manage --config-file %s db sync" % stacked.conf_file]
    processes = dict(stacked.calls("run_process"))
    assert processes["keyvrm-engine"] == "%s/keyvrm-engine --config-file %s" % (stacked.bin, stacked.conf_file)
    assert processes["keyvrm-heartbeat-agent"] == "%s/keyvrm-heartbeat-agent --config-file %s" % (
        stacked.bin, stacked.conf_file)
    scripts = {ep.name for ep in importlib.metadata.distribution("keyvrm").entry_points
               if ep.group == "console_scripts"}
    assert {"keyvrm-manage", "keyvrm-engine", "keyvrm-heartbeat-agent"} <= scripts


def test_install_develops_server_and_client_and_starts_a_local_redis(stacked):
    assert stacked.calls("setup_develop") == [[str(REPO), "ipmi,redfish"], [str(REPO / "client")]]
    assert stacked.calls("install_package") == [["redis-server"]]
    assert stacked.calls("restart_service") == [["redis-server"]]


def test_a_dashboard_without_panels_leaves_horizon_as_it_is(devstack):
    dashboard = devstack.root / "keyvrm-dashboard"
    (dashboard / "keyvrm_dashboard" / "enabled").mkdir(parents=True)
    (dashboard / "setup.cfg").write_text("[metadata]\nname = keyvrm-dashboard\n")
    (dashboard / "keyvrm_dashboard" / "enabled" / "__init__.py").write_text("")
    devstack.env.update(ENABLED_SERVICES=devstack.env["ENABLED_SERVICES"] + ",horizon",
                        KEYVRM_DASHBOARD_DIR=str(dashboard))
    devstack.run("stack install", "stack post-config")
    assert [str(dashboard)] not in devstack.calls("setup_develop")
    assert not (devstack.horizon / "openstack_dashboard" / "local" / "enabled").exists()


def test_the_dashboards_panels_are_installed_and_enabled_in_horizon(devstack):
    dashboard = REPO / "dashboard"
    enabled = sorted(p.name for p in (dashboard / "keyvrm_dashboard" / "enabled").glob("_[0-9]*.py"))
    devstack.env["ENABLED_SERVICES"] += ",horizon"
    devstack.run("stack install", "stack post-config")
    assert [str(dashboard)] in devstack.calls("setup_develop")
    local_enabled = devstack.horizon / "openstack_dashboard" / "local" / "enabled"
    assert sorted(p.name for p in local_enabled.iterdir()) == enabled
    assert enabled[0] == "_4000_keyvrm_panel_group.py"  # the group is read before its panels
    for name in enabled:
        assert (local_enabled / name).resolve() == dashboard / "keyvrm_dashboard" / "enabled" / name
    assert devstack.calls("python") == [["-m", "babel.messages.frontend", "compile", "-D", "django", "-d",
                                         str(dashboard / "keyvrm_dashboard" / "locale")]]  # the Russian catalog
    devstack.run("clean")
    assert list(local_enabled.iterdir()) == []


def test_unstack_stops_every_service_and_clean_removes_config_and_state(devstack):
    devstack.run("stack post-config", "unstack", "clean")
    assert [c[0] for c in devstack.calls("stop_process")] == [
        "keyvrm-api", "keyvrm-engine", "keyvrm-heartbeat-agent"]
    assert devstack.calls("remove_uwsgi_config") == [
        [str(devstack.conf_dir / "keyvrm-api-uwsgi.ini"), "keyvrm-api"]]
    assert not devstack.conf_dir.exists()
    assert not (devstack.root / "data" / "keyvrm").exists()


def test_nothing_happens_when_no_keyvrm_service_is_enabled(devstack):
    devstack.run("stack install", "stack post-config", "stack extra", after_settings="ENABLED_SERVICES=key,horizon")
    assert not devstack.conf_file.exists()
    assert not devstack.log.exists()
