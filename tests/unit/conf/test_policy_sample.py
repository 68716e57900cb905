"""The generated policy sample is current; readers read, admins change, unlocking a VM needs admin."""

import pathlib
import subprocess
import sys

from oslo_config import cfg
from oslo_policy import policy

from keyvrm import policies

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_committed_policy_sample_matches_the_generator(tmp_path):
    output = tmp_path / "policy.yaml.sample"
    subprocess.run([sys.executable, "-W", "ignore", "-c",
                    "import sys; from oslo_policy import generator; sys.exit(generator.generate_sample())",
                    "--config-file", str(ROOT / "etc/keyvrm/keyvrm-policy-generator.conf"),
                    "--output-file", str(output)], check=True, cwd=ROOT)
    committed = (ROOT / "etc/keyvrm/policy.yaml.sample").read_text()
    assert output.read_text() == committed, "run `tox -e genpolicy` and commit the sample"


def _enforcer():
    conf = cfg.ConfigOpts()
    conf([], default_config_files=[])
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    return enforcer


def test_vm_unlock_is_admin_only():
    enforcer = _enforcer()
    reader = {"roles": ["reader"], "system_scope": "all"}
    admin = {"roles": ["admin", "reader"], "system_scope": "all"}
    assert not enforcer.enforce("keyvrm:vm:unlock", {}, reader)
    assert enforcer.enforce("keyvrm:vm:unlock", {}, admin)
    assert enforcer.enforce("keyvrm:vm:get", {}, reader)


def test_readers_read_and_only_admins_change_config():
    enforcer = _enforcer()
    reader = {"roles": ["reader"], "system_scope": "all"}
    assert enforcer.enforce("keyvrm:config:get", {}, reader)
    assert not enforcer.enforce("keyvrm:config:update", {}, reader)
    assert not enforcer.enforce("keyvrm:config:get", {}, {"roles": ["member"], "project_id": "p"})


def test_project_scoped_roles_count_only_in_the_admin_project():
    enforcer = _enforcer()
    admin_project = {"roles": ["admin"], "project_id": "p", "is_admin_project": True}
    other_project = {"roles": ["admin"], "project_id": "p", "is_admin_project": False}
    assert enforcer.enforce("keyvrm:config:update", {}, admin_project)
    assert not enforcer.enforce("keyvrm:config:update", {}, other_project)
    assert not enforcer.enforce("keyvrm:config:get", {}, {"roles": ["reader"], "project_id": "p",
                                                          "is_admin_project": False})
