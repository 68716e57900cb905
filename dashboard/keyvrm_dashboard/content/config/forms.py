"""The global config edit form: every field of SPEC section 2, named as the API names them."""

from django.utils.translation import gettext_lazy as _
from horizon import forms
from horizon import messages

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors

LIST_FIELDS = ('nova_filters', 'ha_fence_interfaces')


def names_of(text):
    """A comma-separated list as the API's list of names (blanks dropped)."""
    return [name.strip() for name in (text or '').split(',') if name.strip()]


def initial_of(config):
    """The form's initial values from the API's config (lists as comma-separated text)."""
    initial = dict(config)
    for name in LIST_FIELDS:
        initial[name] = ', '.join(config.get(name) or [])
    return initial


class GlobalConfigForm(forms.SelfHandlingForm):
    enabled = forms.BooleanField(label=_("KeyVRM enabled"), required=False)
    period = forms.IntegerField(label=_("Cycle period (s)"), min_value=1)
    nova_filters = forms.CharField(label=_("Nova filters (comma-separated; empty: no filtering)"),
                                   required=False)
    ha_fence_ceph = forms.BooleanField(label=_("Fence through Ceph"), required=False)
    ha_fence_bmc = forms.BooleanField(label=_("Fence through the BMC"), required=False)
    ha_fence_nova = forms.BooleanField(label=_("Fence through Nova"), required=False)
    ha_fence_interfaces = forms.CharField(label=_("Fence interfaces (comma-separated)"), required=False)
    ha_power_check_timeout = forms.IntegerField(label=_("BMC power-off confirmation timeout (s)"), min_value=1)
    ha_vm_reset_state_timeout = forms.IntegerField(
        label=_("VM reset-state timeout (s)"), min_value=0,
        help_text=_("Accepted and stored; no effect in this version."))
    ha_no_evacuate_key = forms.CharField(label=_("No-evacuate metadata key"), max_length=255)
    lb_no_migrate_key = forms.CharField(label=_("No-migrate metadata key"), max_length=255)
    executor_max_attempts = forms.IntegerField(label=_("Attempts per recommendation"), min_value=1)
    executor_max_repeated_errors = forms.IntegerField(label=_("Same error in a row that ends it"), min_value=1)
    executor_manual_action_timeout = forms.IntegerField(
        label=_("Manual recommendation timeout (min)"), min_value=1)
    lb_recommendations_auto_run = forms.BooleanField(label=_("Run LB recommendations automatically"),
                                                     required=False)

    def changes(self, data):
        """The API PATCH body: the fields the operator changed, lists as lists."""
        return {name: names_of(data[name]) if name in LIST_FIELDS else data[name] for name in self.changed_data}

    def handle(self, request, data):
        body = self.changes(data)
        if not body:
            messages.info(request, _("Nothing changed."))
            return True
        try:
            keyvrm.config_update(request, **body)
        except keyvrm.ClientError as error:
            return api_errors.put_on_form(self, error)
        messages.success(request, _("Global configuration changed: %s.") % ', '.join(sorted(body)))
        return True
