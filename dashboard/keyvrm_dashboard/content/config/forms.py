"""The global config edit form: every field of SPEC section 2 as a widget of its kind, labelled as the guide names it.

Booleans are checkboxes, ``nova_filters`` a multiple choice of the filters KeyVRM emulates,
``ha_fence_interfaces`` a list with one interface a line; the index shows the values the
same way (``value_text``), never as Python's reprs.
"""

from django.utils.translation import gettext_lazy as _
from horizon import forms
from horizon import messages

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors
from keyvrm_dashboard import states


def names_of(text):
    """The names of a list field's text, one a line (commas also separate), blanks dropped."""
    return [name.strip() for line in (text or '').splitlines() for name in line.split(',') if name.strip()]


def initial_of(config):
    """The form's initial values from the API's config (the interfaces one a line)."""
    initial = dict(config)
    initial['ha_fence_interfaces'] = '\n'.join(config.get('ha_fence_interfaces') or [])
    return initial


def shown_items(value):
    """The lines of a value on the config page: a list's items one a line, any other value as ``value_text``."""
    if isinstance(value, (list, tuple)) and value:
        return list(value)
    return [value_text(value)]


def value_text(value):
    """A config or audit value as the panels show it: Yes/No, a list's items, '-' for none, else the value."""
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if isinstance(value, (list, tuple)):
        return ', '.join(str(item) for item in value) if value else _("(none)")
    return '-' if value is None else value


class GlobalConfigForm(forms.SelfHandlingForm):
    enabled = forms.BooleanField(label=_("KeyVRM enabled"), required=False)
    period = forms.IntegerField(label=_("Cycle period (s)"), min_value=1)
    nova_filters = forms.MultipleChoiceField(
        label=_("Nova filters"), choices=[(name, name) for name in states.NOVA_FILTERS], required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("The Nova scheduler filters a target host must pass, as enabled in your Nova. None chosen:"
                    " KeyVRM picks targets without filters."))
    ha_fence_ceph = forms.BooleanField(label=_("Fence through Ceph"), required=False)
    ha_fence_bmc = forms.BooleanField(label=_("Fence through the BMC"), required=False)
    ha_fence_nova = forms.BooleanField(label=_("Fence through Nova"), required=False)
    ha_fence_interfaces = forms.CharField(
        label=_("Fence interfaces"), required=False, widget=forms.Textarea(attrs={'rows': 3}),
        help_text=_("One network interface a line (e.g. bond0): a host whose listed interface is down is"
                    " fenced and evacuated."))
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
        body = {name: data[name] for name in self.changed_data}
        if 'ha_fence_interfaces' in body:
            body['ha_fence_interfaces'] = names_of(body['ha_fence_interfaces'])
        if 'nova_filters' in body:
            body['nova_filters'] = list(body['nova_filters'])
        return body

    def handle(self, request, data):
        body = self.changes(data)
        if not body:
            messages.info(request, _("Nothing changed."))
            return True
        try:
            keyvrm.config_update(request, **body)
        except keyvrm.ClientError as error:
            return api_errors.put_on_form(self, error)
        changed = ', '.join(str(self.fields[name].label) for name in sorted(body))
        messages.success(request, _("Global configuration changed: %s.") % changed)
        return True
