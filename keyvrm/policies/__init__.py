"""oslo.policy defaults, one module per resource: readers see, admins change (VM unlock, host restore)."""

from keyvrm.policies import aggregate
from keyvrm.policies import availability_zone
from keyvrm.policies import base
from keyvrm.policies import config
from keyvrm.policies import cycle
from keyvrm.policies import event
from keyvrm.policies import hypervisor
from keyvrm.policies import operation
from keyvrm.policies import recommendation
from keyvrm.policies import snapshot
from keyvrm.policies import vm

RESOURCE_MODULES = (config, availability_zone, aggregate, event, recommendation, operation, vm,
                    hypervisor, snapshot, cycle)


def list_rules():
    """Every default rule, for the enforcer and for oslopolicy-sample-generator."""
    rules = list(base.rules)
    for module in RESOURCE_MODULES:
        rules.extend(module.rules)
    return rules
