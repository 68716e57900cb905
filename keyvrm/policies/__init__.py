"""oslo.policy defaults: readers see, admins change; unlocking a VM is admin-only.

Rules are system-scope aware: a system reader (or a project reader of the admin
project when scope enforcement is off) may list and show; changes need admin.
"""

from oslo_policy import policy

RULE_ADMIN = "role:admin"
SYSTEM_OR_PROJECT_READER = "(role:reader and system_scope:all) or role:reader or " + RULE_ADMIN

base_rules = [
    policy.RuleDefault("admin", RULE_ADMIN, description="A KeyVRM administrator."),
    policy.RuleDefault("reader", SYSTEM_OR_PROJECT_READER,
                       description="Anyone who may read KeyVRM's state."),
]


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(name=name, check_str=check, description=description,
                                        operations=[{"method": method, "path": path}],
                                        scope_types=["system", "project"])


resource_rules = [
    _rule("keyvrm:config:get", "rule:reader", "Show the global business config.", "GET",
          "/v1/config"),
    _rule("keyvrm:config:update", "rule:admin", "Change the global business config.", "PATCH",
          "/v1/config"),
    _rule("keyvrm:aggregate:list", "rule:reader", "List aggregates.", "GET", "/v1/aggregates"),
    _rule("keyvrm:aggregate:get", "rule:reader", "Show an aggregate.", "GET",
          "/v1/aggregates/{name}"),
    _rule("keyvrm:aggregate:update", "rule:admin", "Change an aggregate's config.", "PATCH",
          "/v1/aggregates/{name}"),
    _rule("keyvrm:vm:get", "rule:reader", "Show a VM's state and history.", "GET",
          "/v1/vms/{vm_id}"),
    _rule("keyvrm:vm:unlock", "rule:admin", "Release a VM's lock by hand (admin only).", "POST",
          "/v1/vms/{vm_id}/unlock"),
    _rule("keyvrm:snapshot:download", "rule:admin", "Download a raw region snapshot.", "GET",
          "/v1/snapshots/{id}/data"),
]


def list_rules():
    """Every default rule, for the enforcer and for oslopolicy-sample-generator."""
    return base_rules + resource_rules
