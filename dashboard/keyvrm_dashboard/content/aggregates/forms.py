"""The Edit configuration form of an aggregate: marker, NOOP and reason, storage mode, failover reserve, LB."""

from django.utils.translation import gettext_lazy as _
from horizon import forms
from horizon import messages

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors

MARKER_CHOICES = (('', _("(none)")), ('HA', 'HA'), ('LB', 'LB'), ('HA+LB', 'HA+LB'))
STORAGE_CHOICES = (('', _("(undeclared: HA stays off)")), ('shared', _("shared")), ('local', _("local")))
# The server's keyvrm.model.settings.FAILBACK_MODES
FAILBACK_CHOICES = (('off', _("off")), ('recommend', _("recommend")), ('auto', _("auto")))
# The LB dial (the server's keyvrm.model.settings.LB_LEVELS): what each level's thresholds do.
LB_LEVEL_CHOICES = (
    (1, _("1: only hosts at a ceiling, relieved to just under it")),
    (2, _("2: also a syn_score above 90%, relieved to 85%")),
    (3, _("3 (default): hot spots, a syn_score above 80%, relieved to 70%")),
    (4, _("4: earlier, above 70%, relieved to 60%, lower ceilings")),
    (5, _("5: balance, as 4 and hosts far above the aggregate's mean brought near it")),
)


def weight_field(key):
    return 'lb_weight_%s' % key


def ceiling_field(key):
    return 'lb_ceiling_%s' % key


def initial_of(aggregate):
    """The form's initial values from the API's aggregate."""
    initial = {name: aggregate.get(name) for name in (
        'marker', 'no_op_mode', 'no_op_reason', 'ha_failover_reserve', 'lb_level', 'lb_period',
        'lb_overload_threshold', 'lb_target_max_load', 'lb_persistence', 'lb_min_gain', 'failback')}
    initial['name'] = aggregate['name']
    initial['storage_mode'] = aggregate.get('storage_mode') or ''
    for key in keyvrm.LB_KEYS:
        initial[weight_field(key)] = (aggregate.get('lb_weights') or {}).get(key)
        initial[ceiling_field(key)] = (aggregate.get('lb_ceilings') or {}).get(key)
    return initial


class EditAggregateForm(forms.SelfHandlingForm):
    name = forms.CharField(widget=forms.HiddenInput())
    marker = forms.ChoiceField(label=_("Marker"), choices=MARKER_CHOICES, required=False)
    no_op_mode = forms.BooleanField(label=_("NOOP mode"), required=False)
    no_op_reason = forms.CharField(label=_("NOOP reason"), required=False, widget=forms.Textarea(attrs={'rows': 2}),
                                   help_text=_("Required when NOOP is on (e.g. the maintenance ticket)."))
    storage_mode = forms.ChoiceField(label=_("Storage mode"), choices=STORAGE_CHOICES, required=False)
    ha_failover_reserve = forms.IntegerField(
        label=_("Failover reserve (hosts)"), min_value=0, max_value=2,
        help_text=_("How many host failures HA must be able to absorb; below it each cycle warns"
                    " insufficient_failover_capacity. 0: no reserve."))
    lb_level = forms.TypedChoiceField(
        label=_("LB level"), choices=LB_LEVEL_CHOICES, coerce=int,
        help_text=_("How hard LB works. Choosing a level sets the overload threshold, target max load and"
                    " ceilings below to the level's values (level 1: a host is overloaded only at a ceiling;"
                    " 2: also a syn_score above 90%, relieved to 85%; 3: above 80%, relieved to 70%;"
                    " 4: above 70%, relieved to"
                    " 60%, ceilings cpu 80, ram 90, net 85; 5: as 4, and a host more than 25 points above the"
                    " aggregate's mean is relieved to near it), except those you change here at the same"
                    " time. Change a threshold later to override it: the list marks the level with *."))
    lb_period = forms.IntegerField(label=_("LB period (s)"), min_value=0)
    lb_overload_threshold = forms.FloatField(label=_("Overload threshold (syn_score %)"), min_value=0,
                                             max_value=100)
    lb_target_max_load = forms.FloatField(label=_("Target max load (syn_score %)"), min_value=0, max_value=100)
    failback = forms.ChoiceField(
        label=_("Failback"), choices=FAILBACK_CHOICES,
        help_text=_("After one of its hosts is returned to service, the VMs KeyVRM's drains and HA evacuations"
                    " moved off it: leave them (off; Return to Service with Failback still brings them back),"
                    " recommend moving them back (runs wait for an operator), or move them back at once (auto)."))
    lb_persistence = forms.IntegerField(
        label=_("Overload persistence (LB runs)"), min_value=1, max_value=10,
        help_text=_("How many consecutive LB runs must find a host overloaded before LB moves VMs off it."
                    " 1: the first run acts (its loads are already averaged over the metrics window);"
                    " 2 or more let a burst pass first."))
    lb_min_gain = forms.FloatField(
        label=_("Least gain of a move (points)"), min_value=0, max_value=50,
        help_text=_("How much a move must narrow the gap between its source and its target on each measure"
                    " it relieves; smaller moves are not worth a migration."))

    def __init__(self, request, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        for key in keyvrm.LB_KEYS:
            self.fields[weight_field(key)] = forms.FloatField(
                label=_("Weight of %s") % key, min_value=0, max_value=1000)
        for key in keyvrm.LB_KEYS:
            self.fields[ceiling_field(key)] = forms.FloatField(
                label=_("Ceiling of %s (%%, empty: none)") % key, min_value=1, max_value=100, required=False)

    def clean(self):
        """Refuse NOOP on without a reason (the API refuses it too)."""
        data = super().clean()
        if data.get('no_op_mode') and not (data.get('no_op_reason') or '').strip():
            self.add_error('no_op_reason', _("A reason is required when NOOP is on."))
        return data

    def changes(self, data):
        """The API PATCH body: the fields the operator changed (NOOP on always carries its reason)."""
        changed = set(self.changed_data)
        body = {}
        for name in ('marker', 'no_op_mode', 'no_op_reason', 'ha_failover_reserve', 'lb_level', 'lb_period',
                     'lb_overload_threshold', 'lb_target_max_load', 'lb_persistence', 'lb_min_gain', 'failback'):
            if name in changed:
                body[name] = data[name]
        if 'storage_mode' in changed:
            body['storage_mode'] = data['storage_mode'] or None
        if data.get('no_op_mode') and 'no_op_mode' in changed:
            body['no_op_reason'] = data['no_op_reason']
        if any(weight_field(key) in changed for key in keyvrm.LB_KEYS):
            body['lb_weights'] = {key: data[weight_field(key)] for key in keyvrm.LB_KEYS}
        if any(ceiling_field(key) in changed for key in keyvrm.LB_KEYS):
            body['lb_ceilings'] = {key: data[ceiling_field(key)] for key in keyvrm.LB_KEYS}
        return body

    def handle(self, request, data):
        body = self.changes(data)
        if not body:
            messages.info(request, _("Nothing changed on %s.") % data['name'])
            return True
        try:
            keyvrm.aggregate_update(request, data['name'], **body)
        except keyvrm.ClientError as error:
            return api_errors.put_on_form(self, error)
        messages.success(request, _("Configuration of %s changed.") % data['name'])
        return True
