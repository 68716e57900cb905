"""The Hypervisors panel's view: KeyVRM's hypervisor list."""

from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import tables

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.hypervisors import tables as hypervisor_tables


class IndexView(tables.DataTableView):
    table_class = hypervisor_tables.HypervisorsTable
    template_name = 'admin/keyvrm_hypervisors/index.html'
    page_title = _("KeyVRM: hypervisors")

    def get_data(self):
        try:
            return keyvrm.hypervisor_list(self.request)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve KeyVRM's hypervisors."))
            return []
