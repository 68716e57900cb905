"""Views of the Global configuration panel: the config with its audit trail, and the edit form."""

from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import forms
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.config import forms as config_forms
from keyvrm_dashboard.content.config import tables as config_tables
from keyvrm_dashboard import paging

INDEX_URL = reverse_lazy('horizon:admin:keyvrm_config:index')


class IndexView(tables.DataTableView):
    table_class = config_tables.ConfigAuditTable
    template_name = 'admin/keyvrm_config/index.html'
    page_title = _("KeyVRM: global configuration")

    def get_data(self):
        """The newest "Items Per Page" audit rows (the API's audit log has no marker to page further)."""
        try:
            return keyvrm.config_audit_list(self.request, limit=paging.page_size(self.request))
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the config audit trail."))
            return []

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        try:
            config = keyvrm.config_get(self.request)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve KeyVRM's global configuration."))
            config = {}
        labels = config_forms.GlobalConfigForm.base_fields
        context['config_rows'] = [(name, labels[name].label, config_forms.shown_items(config[name]))
                                  for name in labels if name in config]
        context['may_change'] = access.allowed(self.request, access.CONFIG_UPDATE)
        return context


class EditView(access.PolicyRequired, forms.ModalFormView):
    policy_rules = access.rules(access.CONFIG_UPDATE)
    form_class = config_forms.GlobalConfigForm
    form_id = 'edit_config_form'
    template_name = 'admin/keyvrm_config/edit.html'
    modal_header = _("Edit global configuration")
    submit_label = _("Save")
    submit_url = reverse_lazy('horizon:admin:keyvrm_config:edit')
    success_url = INDEX_URL
    page_title = _("Edit global configuration")

    def get_initial(self):
        try:
            return config_forms.initial_of(keyvrm.config_get(self.request))
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve KeyVRM's global configuration."),
                              redirect=INDEX_URL)
