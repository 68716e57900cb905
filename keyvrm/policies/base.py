"""The two personas every KeyVRM rule builds on: reader and admin (system-scope aware).

KeyVRM shows region-wide infrastructure (hypervisors, every project's VMs), so a plain
project member sees nothing. A system-scoped token (``system_scope:all``) is the
intended caller; a token of Keystone's admin project is accepted too, for clouds that
do not use system scope yet.
"""

from oslo_policy import policy

OPERATOR_SCOPE = "(system_scope:all or is_admin_project:True)"
RULE_ADMIN = "rule:admin"
RULE_READER = "rule:reader"


def persona_rules(scope=OPERATOR_SCOPE):
    """The admin and reader rules: each role ANDed with ``scope``, or the role alone when ``scope`` is None.

    The API checks the scope. Horizon's policy engine knows only the user's roles (its
    credentials carry no ``system_scope`` nor ``is_admin_project``), so the dashboard's
    copy of these rules (keyvrm.policies.horizon) is the role alone.
    """
    if scope is None:
        admin, reader, note = "role:admin", "(role:reader)", " (the API also checks the token's scope)"
        admins, readers = "the admin role", "a reader or an admin"
    else:
        admin, reader, note = "role:admin and " + scope, "(role:reader and %s)" % scope, ""
        admins = "the admin role, system or admin-project scope"
        readers = "a reader with system or admin-project scope, or an admin"
    return [
        policy.RuleDefault("admin", admin, description="A KeyVRM administrator: %s%s." % (admins, note)),
        policy.RuleDefault("reader", reader + " or rule:admin",
                           description="Anyone who may read KeyVRM's state: %s%s." % (readers, note)),
    ]


rules = persona_rules()


def rule(name, check, description, operations):
    """A documented rule for ``operations`` ([(method, path)]) usable with system or project scope."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{"method": m, "path": p} for m, p in operations],
        scope_types=["system", "project"])
