"""KeyVRM's policy defaults as Horizon loads them (its DEFAULT_POLICY_FILES): the dashboard's shipped copy.

``tox -e genpolicy`` writes it to the dashboard package; a unit test fails when the
committed file differs from what this module renders, so it cannot drift from the API's
rules. Every ``keyvrm:*`` rule is the API's own; only the admin and reader personas
differ (``base.persona_rules(None)``: Horizon knows the user's roles, not the token's
scope). The fields are those of Horizon's ``manage.py dump_default_policies``.
"""

import sys

import yaml

from keyvrm import policies
from keyvrm.policies import base

DASHBOARD_FILE = "dashboard/keyvrm_dashboard/conf/default_policies/keyvrm.yaml"
HEADER = ("# KeyVRM's policy defaults for Horizon, written by `tox -e genpolicy` from keyvrm/policies\n"
          "# (keyvrm.policies.horizon). Do not edit: override a rule in Horizon's keyvrm_policy.yaml.\n")


def horizon_rules():
    """Every rule of the API with the personas Horizon can check (roles only)."""
    personas = {persona.name for persona in base.rules}
    return base.persona_rules(None) + [rule for rule in policies.list_rules() if rule.name not in personas]


def _entry(rule):
    return {"name": rule.name, "check_str": rule.check_str, "description": rule.description,
            "operations": getattr(rule, "operations", []), "scope_types": rule.scope_types}


def render():
    """The YAML text of the dashboard's defaults file."""
    return HEADER + yaml.safe_dump([_entry(rule) for rule in horizon_rules()], default_flow_style=False)


def main(argv=None):
    """Write the defaults file to the path given (the dashboard's, relative to the repository, by default)."""
    args = sys.argv[1:] if argv is None else argv
    with open(args[0] if args else DASHBOARD_FILE, "w", encoding="utf-8") as output:
        output.write(render())


if __name__ == "__main__":
    main()
