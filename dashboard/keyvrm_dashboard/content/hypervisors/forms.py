"""A host's forms: Drain (the reason its compute service is disabled with), Return to service (with failback?)."""

from django.utils.translation import gettext_lazy as _
from horizon import forms
from horizon import messages

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors


class DrainHostForm(forms.SelfHandlingForm):
    host = forms.CharField(widget=forms.HiddenInput())
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={'rows': 2}),
                             help_text=_("The host's compute service is disabled with it (e.g. the maintenance"
                                         " ticket)."))

    def handle(self, request, data):
        try:
            keyvrm.hypervisor_drain(request, data['host'], data['reason'])
        except keyvrm.ClientError as error:
            return api_errors.put_on_form(self, error)
        messages.success(request, _("Drain of %s requested: KeyVRM moves its VMs away from its next cycle.")
                         % data['host'])
        return True


class RestoreHostForm(forms.SelfHandlingForm):
    """Return a host to service, as the reasons component's button next to a host offers it (the form confirms)."""

    host = forms.CharField(widget=forms.HiddenInput())
    failback = forms.BooleanField(label=_("Bring back the VMs KeyVRM moved off it (failback)"), required=False)

    def handle(self, request, data):
        try:
            keyvrm.hypervisor_restore(request, data['host'], data['failback'])
        except keyvrm.ClientError as error:
            return api_errors.put_on_form(self, error)
        messages.success(request, _("%s returns to service.") % data['host'])
        return True
