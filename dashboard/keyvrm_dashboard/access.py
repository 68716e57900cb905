"""Who may change things through the panels: KeyVRM's policy rules, checked by Horizon's policy engine.

The rules are the API's (keyvrm/policies); Horizon loads their defaults from the copy this
package ships (``conf/default_policies/keyvrm.yaml``, registered by ``apps.py``) and an
operator's overrides from ``keyvrm_policy.yaml`` in Horizon's POLICY_FILES_PATH. Tables'
actions name the rule of their API call in ``policy_rules``; views and templates ask
``allowed``. Horizon's Admin dashboard decides who sees the panels; the API refuses anyway.
"""

from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from openstack_dashboard import policy

# Horizon's policy scope of KeyVRM's rules: the service type of its catalog entry.
SERVICE = 'vm-resource-manager'

AGGREGATE_UPDATE = 'keyvrm:aggregate:update'
CONFIG_UPDATE = 'keyvrm:config:update'
HYPERVISOR_DRAIN = 'keyvrm:hypervisor:drain'
HYPERVISOR_RESTORE = 'keyvrm:hypervisor:restore'
RECOMMENDATION_RUN = 'keyvrm:recommendation:run'
RECOMMENDATION_CANCEL = 'keyvrm:recommendation:cancel'
VM_UNLOCK = 'keyvrm:vm:unlock'


def rules(name):
    """Horizon's ``policy_rules`` of one KeyVRM rule: ``((SERVICE, name),)``."""
    return ((SERVICE, name),)


def allowed(request, name):
    """Whether KeyVRM's rule ``name`` lets the user make that API call (Horizon's configured policy check)."""
    return policy.check(rules(name), request)


class PolicyRequired(object):
    """View mixin: a user whom the view's ``policy_rules`` refuse gets Horizon's NotAuthorized, not the form."""

    policy_rules = ()
    refused_message = _("KeyVRM's policy does not let you make this change.")

    def dispatch(self, request, *args, **kwargs):
        if not policy.check(self.policy_rules, request):
            raise exceptions.NotAuthorized(self.refused_message)
        return super().dispatch(request, *args, **kwargs)
