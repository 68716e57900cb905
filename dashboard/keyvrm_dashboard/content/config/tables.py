"""The config audit trail table: who changed which field, when (relative, exact on hover), from what to what."""

from django.utils.translation import gettext_lazy as _
from horizon import tables

from keyvrm_dashboard.content.config import forms as config_forms
from keyvrm_dashboard.templatetags import keyvrm_time


class ConfigAuditTable(tables.DataTable):
    changed_at = tables.Column('changed_at', verbose_name=_("When"), filters=(keyvrm_time.time_html,))
    changed_by = tables.Column('changed_by', verbose_name=_("Who"))
    scope = tables.Column('scope', verbose_name=_("Scope"))
    target = tables.Column('target', verbose_name=_("Target"), empty_value='-')
    field = tables.Column('field', verbose_name=_("Field"))
    old_value = tables.WrappingColumn('old_value', verbose_name=_("Old value"), filters=(config_forms.value_text,))
    new_value = tables.WrappingColumn('new_value', verbose_name=_("New value"), filters=(config_forms.value_text,))

    def get_object_id(self, datum):
        return '%s-%s-%s-%s' % (datum['changed_at'], datum['scope'], datum.get('target') or '', datum['field'])

    class Meta(object):
        name = 'config_audit'
        verbose_name = _("Audit trail")
