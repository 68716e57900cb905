"""Every command on a ``postgresql+psycopg2://`` URL without psycopg2: one line naming the package, no traceback.

A first deployment that installed ``keyvrm`` without its ``postgresql`` extra (issue 32
item 6). Each command is a real process in which psycopg2 cannot be imported (a
``sitecustomize`` on its PYTHONPATH refuses it), as on a machine where it is not installed.
"""

import configparser
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

BLOCK_PSYCOPG2 = '''\
import sys


class _NotInstalled:
    """Finds psycopg2 nowhere, as on a machine without the postgresql extra."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "psycopg2":
            raise ModuleNotFoundError("No module named %r" % name, name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''
ROOT = pathlib.Path(__file__).resolve().parents[3]
# "pip install keyvrm[...]" or "pip install .[...]" (the server, not ./client or ./dashboard): its extras
SERVER_INSTALL = re.compile(r"pip install (?:keyvrm|\.)(?:\[([a-z,]+)\])?(?=[\s`'])")
NOT_INSTALLED = ("invalid [database] connection: the database driver of postgresql+psycopg2:// is not installed "
                 "(psycopg2): pip install 'keyvrm[postgresql]' (psycopg2-binary)")


@pytest.fixture
def without_psycopg2(tmp_path):
    """(environment whose Python cannot import psycopg2, config file with the install guide's URL)."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCK_PSYCOPG2)
    config_file = tmp_path / "keyvrm.conf"
    config_file.write_text("[database]\nconnection = postgresql+psycopg2://keyvrm:secret@127.0.0.1/keyvrm\n"
                           "[metrics]\nurl = http://127.0.0.1:1\n"
                           "[heartbeat]\ndriver = redis\nredis_url = redis://127.0.0.1:1/0\n")
    env = dict(os.environ, KEYVRM_STATE_PATH=str(tmp_path), PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join([str(shim)] + sys.path))
    env.pop("KEYVRM_CONFIG_FILE", None)
    return env, config_file


def _run(env, config_file, command, *args):
    """``command`` (a console script's module, keyvrm.cmd.NAME:main) as its own process."""
    code = "import sys; from keyvrm.cmd.%s import main; sys.exit(main())" % command
    return subprocess.run([sys.executable, "-c", code, "--config-file", str(config_file), *args], env=env,
                          capture_output=True, text=True, timeout=60)


def test_the_readme_and_the_install_guide_install_the_server_with_the_postgresql_extra_that_brings_psycopg2():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    assert setup["extras"]["postgresql"].split() == ["psycopg2-binary>=2.9"]
    for doc in ("README.md", "doc/source/install/index.rst"):
        extras = SERVER_INSTALL.findall((ROOT / doc).read_text())
        assert extras and all("postgresql" in found.split(",") for found in extras), (doc, extras)


@pytest.mark.parametrize("command, args, exit_code", [
    ("manage", ("db", "sync"), 1), ("api", (), 2), ("engine", (), 2)])
def test_a_service_or_keyvrm_manage_stops_with_one_line_naming_the_package(without_psycopg2, command, args,
                                                                           exit_code):
    result = _run(*without_psycopg2, command, *args)
    assert result.returncode == exit_code, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == "keyvrm-%s: %s" % (command, NOT_INSTALLED)


def test_keyvrm_status_fails_the_schema_check_naming_the_package(without_psycopg2):
    result = _run(*without_psycopg2, "status", "upgrade", "check", "--json")
    assert result.returncode == 2 and "Traceback" not in result.stderr + result.stdout
    checks = {check["check"]: (check["result"], check["details"]) for check in json.loads(result.stdout)["checks"]}
    assert checks["Database schema"] == (2, NOT_INSTALLED)
