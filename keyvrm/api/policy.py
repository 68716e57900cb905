"""The oslo.policy enforcer of keyvrm-api, with KeyVRM's default rules registered."""

from oslo_policy import policy

from keyvrm import policies


def enforcer(conf):
    """An enforcer reading ``[oslo_policy]`` of ``conf`` (policy file overrides the defaults)."""
    result = policy.Enforcer(conf)
    result.register_defaults(policies.list_rules())
    return result
