"""A VM's history table: KeyVRM's actions on it with status and message."""

from django.utils.translation import gettext_lazy as _
from horizon import tables

HISTORY_STATUS_COLOURS = (('succeeded', True), ('success', True), ('failed', False), ('error', False))


class VMHistoryTable(tables.DataTable):
    started_at = tables.Column('started_at', verbose_name=_("Started"))
    action = tables.Column('action', verbose_name=_("Action"))
    status = tables.Column('status', verbose_name=_("Status"), status=True, status_choices=HISTORY_STATUS_COLOURS)
    message = tables.WrappingColumn('message', verbose_name=_("Message"), empty_value='')
    finished_at = tables.Column('finished_at', verbose_name=_("Finished"), empty_value='-')
    duration_s = tables.Column('duration_s', verbose_name=_("Duration (s)"), empty_value='-')

    def get_object_id(self, datum):
        return '%s-%s' % (datum['started_at'], datum['action'])

    class Meta(object):
        name = 'vm_history'
        verbose_name = _("History")
