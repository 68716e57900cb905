"""The Drain form of a host: the reason its compute service is disabled with."""

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
