"""Views of the VMs panel: lookup, a VM's lifecycle state and history, and Unlock (admins only)."""

from django.urls import reverse
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import forms
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.vms import forms as vm_forms
from keyvrm_dashboard.content.vms import tables as vm_tables

INDEX_URL = reverse_lazy('horizon:admin:keyvrm_vms:index')


class IndexView(forms.ModalFormView):
    form_class = vm_forms.FindVMForm
    form_id = 'find_vm_form'
    template_name = 'admin/keyvrm_vms/index.html'
    modal_header = _("Find a VM")
    submit_label = _("Show")
    submit_url = INDEX_URL
    success_url = INDEX_URL
    page_title = _("KeyVRM: VMs")

    def get_success_url(self):
        return getattr(self.form, 'success_url', INDEX_URL)

    def form_valid(self, form):
        self.form = form
        return super().form_valid(form)


class DetailView(tables.DataTableView):
    table_class = vm_tables.VMHistoryTable
    template_name = 'admin/keyvrm_vms/detail.html'
    page_title = _("VM {{ vm_id }}")

    def get_data(self):
        try:
            return keyvrm.vm_history(self.request, self.kwargs['vm_id'])
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the history of VM %s.") % self.kwargs['vm_id'])
            return []

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['vm_id'] = self.kwargs['vm_id']
        try:
            context['vm'] = keyvrm.vm_get(self.request, self.kwargs['vm_id'])
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve VM %s.") % self.kwargs['vm_id'])
            context['vm'] = None
        context['may_unlock'] = access.may_change(self.request)
        return context


class UnlockView(access.ChangersOnly, forms.ModalFormView):
    form_class = vm_forms.UnlockVMForm
    form_id = 'unlock_vm_form'
    template_name = 'admin/keyvrm_vms/unlock.html'
    modal_header = _("Unlock VM")
    submit_label = _("Unlock")
    submit_url = 'horizon:admin:keyvrm_vms:unlock'
    page_title = _("Unlock VM")

    def get_initial(self):
        return {'vm_id': self.kwargs['vm_id']}

    def get_success_url(self):
        return reverse('horizon:admin:keyvrm_vms:detail', args=[self.kwargs['vm_id']])

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['submit_url'] = reverse(self.submit_url, args=[self.kwargs['vm_id']])
        context['vm_id'] = self.kwargs['vm_id']
        return context
