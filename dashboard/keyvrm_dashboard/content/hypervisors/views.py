"""The Hypervisors panel's views: a page of KeyVRM's hypervisors, filtered; a host's detail; its Drain and Return to
service forms (admins only)."""

from django.urls import reverse
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import forms
from horizon import messages
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.hypervisors import forms as hypervisor_forms
from keyvrm_dashboard.content.hypervisors import tables as hypervisor_tables
from keyvrm_dashboard import paging
from keyvrm_dashboard.templatetags import keyvrm_time

INDEX_URL = reverse_lazy('horizon:admin:keyvrm_hypervisors:index')


class IndexView(paging.PagedView, tables.DataTableView):
    """One page of hosts by name, with the filter of the table's box (or of a link: ?aggregate=agg-a)."""

    table_class = hypervisor_tables.HypervisorsTable
    template_name = 'admin/keyvrm_hypervisors/index.html'
    page_title = _("KeyVRM: hypervisors")

    def get(self, request, *args, **kwargs):
        return paging.linked_filter_redirect(request, self.get_table()) or super().get(request, *args, **kwargs)

    def get_data(self):
        table = self.get_table()
        try:
            filters = table._meta._filter_action.api_filters(table)
        except paging.FilterValueError as error:
            messages.error(self.request, str(error))
            return []

        def fetch(limit, marker, backwards):
            return keyvrm.hypervisor_list(self.request, limit=limit, marker=marker,
                                          sort_dir='desc' if backwards else None, **filters)
        try:
            return self.page(self.table_class, fetch)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve KeyVRM's hypervisors."))
            return []


def seen_before_fence(hypervisor) -> bool:
    """Whether Nova's view of the host (the newest snapshot's) was taken before KeyVRM's fence of it."""
    seen = keyvrm_time.parse_time(hypervisor.get('seen_at'))
    fenced = keyvrm_time.parse_time(hypervisor.get('fenced_at'))
    return seen is not None and fenced is not None and seen < fenced


class DetailView(tables.DataTableView):
    """One host: KeyVRM's state and its fencing record (a step per method), beside Nova's view from the snapshot."""

    table_class = hypervisor_tables.FencingStepsTable
    template_name = 'admin/keyvrm_hypervisors/detail.html'
    page_title = _("Hypervisor {{ host }}")

    def _hypervisor(self):
        if not hasattr(self, '_fetched'):
            try:
                self._fetched = keyvrm.hypervisor_get(self.request, self.kwargs['host'])
            except Exception:
                exceptions.handle(self.request, _("Unable to retrieve hypervisor %s.") % self.kwargs['host'])
                self._fetched = None
        return self._fetched

    def get_data(self):
        hypervisor = self._hypervisor()
        return hypervisor['fencing'] if hypervisor else []

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        hypervisor = self._hypervisor()
        context.update(host=self.kwargs['host'], hypervisor=hypervisor,
                       seen_before_fence=bool(hypervisor) and seen_before_fence(hypervisor))
        return context


class _HostModal(access.PolicyRequired, forms.ModalFormView):
    """A modal form about the URL's host, for users its ``policy_rules`` allow; done, the hypervisors list."""

    success_url = INDEX_URL

    def get_initial(self):
        return {'host': self.kwargs['host']}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['submit_url'] = reverse(self.submit_url, args=[self.kwargs['host']])
        context['host'] = self.kwargs['host']
        return context


class DrainView(_HostModal):
    """The modal Drain form of one host (the API refuses a host that is not ok)."""

    policy_rules = access.rules(access.HYPERVISOR_DRAIN)
    form_class = hypervisor_forms.DrainHostForm
    form_id = 'drain_hypervisor_form'
    template_name = 'admin/keyvrm_hypervisors/drain.html'
    modal_header = _("Drain host")
    submit_label = _("Drain")
    submit_url = 'horizon:admin:keyvrm_hypervisors:drain'
    page_title = _("Drain host")


class RestoreView(_HostModal):
    """The modal Return to service form of one host, opened from a reason naming it (the API may refuse it)."""

    policy_rules = access.rules(access.HYPERVISOR_RESTORE)
    form_class = hypervisor_forms.RestoreHostForm
    form_id = 'restore_hypervisor_form'
    template_name = 'admin/keyvrm_hypervisors/restore.html'
    modal_header = _("Return to service")
    submit_label = _("Return to service")
    submit_url = 'horizon:admin:keyvrm_hypervisors:restore'
    page_title = _("Return to service")
