"""The VM lookup form (a VM's UUID) and the Unlock confirmation."""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import forms
from horizon import messages

from keyvrm_dashboard.api import keyvrm


class FindVMForm(forms.SelfHandlingForm):
    vm_id = forms.CharField(label=_("VM ID"), max_length=255)

    def handle(self, request, data):
        """Always succeeds: the detail page says whether KeyVRM knows the VM."""
        self.success_url = reverse('horizon:admin:keyvrm_vms:detail', args=[data['vm_id'].strip()])
        return True


class UnlockVMForm(forms.SelfHandlingForm):
    vm_id = forms.CharField(widget=forms.HiddenInput())

    def handle(self, request, data):
        try:
            result = keyvrm.vm_unlock(request, data['vm_id'])
        except Exception:
            exceptions.handle(request, _("Unable to unlock VM %s.") % data['vm_id'])
            return False
        if result and not result.get('was_locked'):
            messages.info(request, _("VM %s was not locked.") % data['vm_id'])
        else:
            messages.success(request, _("VM %s unlocked.") % data['vm_id'])
        return True
