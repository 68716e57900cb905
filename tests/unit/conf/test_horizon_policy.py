"""The dashboard's copy of the policy defaults is current, keeps the API's rules, and works on Horizon's credentials."""

import pathlib

from oslo_config import cfg
from oslo_policy import policy
import yaml

from keyvrm import policies
from keyvrm.policies import horizon

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHIPPED = ROOT / horizon.DASHBOARD_FILE


def test_committed_dashboard_defaults_match_keyvrm_policies():
    assert SHIPPED.read_text() == horizon.render(), "run `tox -e genpolicy` and commit the dashboard's copy"


def test_dashboard_defaults_keep_every_api_rule_and_only_the_personas_lose_the_scope():
    shipped = {entry["name"]: entry["check_str"] for entry in yaml.safe_load(SHIPPED.read_text())}
    api = {rule.name: rule.check_str for rule in policies.list_rules()}
    assert set(shipped) == set(api)
    changed = {name for name in api if shipped[name] != api[name]}
    assert changed == {"admin", "reader"}


def _horizon_enforcer():
    """An enforcer loaded as Horizon's openstack_auth.policy loads a DEFAULT_POLICY_FILES entry."""
    conf = cfg.ConfigOpts()
    conf([], default_config_files=[])
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults([policy.RuleDefault(entry["name"], entry["check_str"])
                                for entry in yaml.safe_load(SHIPPED.read_text())])
    return enforcer


def test_horizon_credentials_of_an_admin_pass_changes_and_of_a_reader_only_reads():
    # what openstack_auth.policy gives oslo.policy: the roles and the project, no token scope
    enforcer = _horizon_enforcer()
    admin = {"roles": ["admin", "member", "reader"], "project_id": "admin-project", "is_admin": True}
    reader = {"roles": ["member", "reader"], "project_id": "admin-project", "is_admin": True}
    member = {"roles": ["member"], "project_id": "demo", "is_admin": False}
    assert enforcer.enforce("keyvrm:hypervisor:drain", {}, admin)
    assert not enforcer.enforce("keyvrm:hypervisor:drain", {}, reader)
    assert enforcer.enforce("keyvrm:hypervisor:list", {}, reader)
    assert not enforcer.enforce("keyvrm:hypervisor:list", {}, member)
