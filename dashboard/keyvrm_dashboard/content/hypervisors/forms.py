"""A host's forms: Drain (the reason its service is disabled with, cold migration allowed?), Return to service."""

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
    allow_cold = forms.BooleanField(
        label=_("Allow cold migration"), required=False, initial=False,
        help_text=_("Also move the VMs a live migration cannot move, by Nova's cold migration (migrate, then confirm):"
                    " stopped VMs, and running VMs whose live migration failed, which are powered off for their move"
                    " and started again on their target. Off: they stay on the host, named with why."))

    def handle(self, request, data):
        try:
            keyvrm.hypervisor_drain(request, data['host'], data['reason'], allow_cold=data['allow_cold'])
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
