"""Views of the VMs panel: the VMs KeyVRM holds (a page, filtered) with a lookup by UUID, a VM's state and
history, and Unlock (admins only)."""

from django import shortcuts
from django.urls import reverse
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import forms
from horizon import messages
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.vms import forms as vm_forms
from keyvrm_dashboard.content.vms import tables as vm_tables
from keyvrm_dashboard import paging

INDEX_URL = reverse_lazy('horizon:admin:keyvrm_vms:index')


class IndexView(paging.PagedView, tables.DataTableView):
    """The lookup form (a VM's UUID), then one page of the VMs KeyVRM holds, filtered by lock or state."""

    table_class = vm_tables.VMsTable
    template_name = 'admin/keyvrm_vms/index.html'
    page_title = _("KeyVRM: VMs")

    def get(self, request, *args, **kwargs):
        return paging.linked_filter_redirect(request, self.get_table()) or super().get(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        """The lookup form's POST goes to the VM's page (or shows the form's errors); the table's as Horizon's."""
        if 'vm_id' not in request.POST:
            return super().post(request, *args, **kwargs)
        self.find_form = vm_forms.FindVMForm(request, data=request.POST)
        if self.find_form.is_valid() and self.find_form.handle(request, self.find_form.cleaned_data):
            return shortcuts.redirect(self.find_form.success_url)
        return self.get(request, *args, **kwargs)

    def get_data(self):
        table = self.get_table()
        try:
            filters = table._meta._filter_action.api_filters(table)
        except paging.FilterValueError as error:
            messages.error(self.request, str(error))
            return []

        def fetch(limit, marker, backwards):
            return keyvrm.vm_list(self.request, limit=limit, marker=marker, sort_dir='desc' if backwards else None,
                                  **filters)
        try:
            return self.page(self.table_class, fetch)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the VMs KeyVRM holds."))
            return []

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(form=getattr(self, 'find_form', None) or vm_forms.FindVMForm(self.request),
                       form_id='find_vm_form', submit_url=INDEX_URL, modal_header=_("Find a VM"),
                       submit_label=_("Show"), hide=False)
        return context


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
        context['may_unlock'] = access.allowed(self.request, access.VM_UNLOCK)
        return context


class UnlockView(access.PolicyRequired, forms.ModalFormView):
    policy_rules = access.rules(access.VM_UNLOCK)
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
