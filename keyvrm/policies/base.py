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

rules = [
    policy.RuleDefault("admin", "role:admin and " + OPERATOR_SCOPE,
                       description="A KeyVRM administrator: the admin role, system or admin-project scope."),
    policy.RuleDefault("reader", "(role:reader and %s) or rule:admin" % OPERATOR_SCOPE,
                       description="Anyone who may read KeyVRM's state: a reader with system or "
                                   "admin-project scope, or an admin."),
]


def rule(name, check, description, operations):
    """A documented rule for ``operations`` ([(method, path)]) usable with system or project scope."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{"method": m, "path": p} for m, p in operations],
        scope_types=["system", "project"])
