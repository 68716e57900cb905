"""The VMs panel's tables: the VMs KeyVRM holds (a page at a time, by lock and state) and a VM's history."""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard import labels
from keyvrm_dashboard import paging
from keyvrm_dashboard import states
from keyvrm_dashboard.templatetags import keyvrm_time

HISTORY_STATUS_COLOURS = (('succeeded', True), ('success', True), ('failed', False), ('error', False))


def vm_url(datum):
    return reverse('horizon:admin:keyvrm_vms:detail', args=[datum['vm_id']])


def state_of(datum):
    """The transition the VM is in, else the failure its last one left, else ''."""
    state = datum.get('transitional_state') or datum.get('failure_state')
    return labels.label(labels.VM_STATES, state) if state else ''


def status_on_host(status, host):
    """``ACTIVE on cmp-1``; '-' when KeyVRM knows neither."""
    if not status and not host:
        return '-'
    return _("%(status)s on %(host)s") % {'status': status or '-', 'host': host or '-'}


def observed_of(datum):
    return status_on_host(datum.get('observed_status'), datum.get('observed_host'))


def desired_of(datum):
    return status_on_host(datum.get('desired_status'), datum.get('desired_host'))


def locked_of(datum):
    """``Yes (executor:rec-1)`` or ``No``."""
    if not datum.get('locked'):
        return _("No")
    return _("Yes (%s)") % (datum.get('lock_owner') or '?')


class VMFilter(paging.ServerFilter):
    """VMs by lock or state (the API filters them, one page at a time)."""

    name = 'filter_keyvrm_vms'
    filter_choices = (('locked', _("Locked ="), True, _("yes or no")), ('state', _("State ="), True))
    values = {'locked': paging.yes_no_value, 'state': paging.one_of(_("State"), states.VM_STATES, labels.VM_STATES)}


class UnlockVM(tables.LinkAction):
    name = 'unlock'
    verbose_name = _("Unlock")
    url = 'horizon:admin:keyvrm_vms:unlock'
    classes = ('ajax-modal', 'btn-danger')
    icon = 'unlock'
    policy_rules = access.rules(access.VM_UNLOCK)

    def allowed(self, request, datum=None):
        """Offered on a locked VM (the form asks for confirmation)."""
        return datum is not None and bool(datum.get('locked'))


class VMsTable(paging.PagedTable, tables.DataTable):
    vm_id = tables.Column('vm_id', verbose_name=_("VM"), link=vm_url)
    observed = tables.Column(observed_of, verbose_name=_("Observed"))
    desired = tables.Column(desired_of, verbose_name=_("Desired"))
    state = tables.Column(state_of, verbose_name=_("State"), empty_value='-')
    locked = tables.Column(locked_of, verbose_name=_("Locked"))
    locked_at = tables.Column('locked_at', verbose_name=_("Locked since"), filters=(keyvrm_time.time_html,))
    deadline_at = tables.Column('deadline_at', verbose_name=_("Deadline"), filters=(keyvrm_time.time_html,))
    updated_at = tables.Column('updated_at', verbose_name=_("Updated"), filters=(keyvrm_time.time_html,))

    def get_object_id(self, datum):
        return datum['vm_id']

    class Meta(object):
        name = 'vms'
        verbose_name = _("VMs KeyVRM holds")
        table_actions = (VMFilter,)
        row_actions = (UnlockVM,)


class VMHistoryTable(tables.DataTable):
    started_at = tables.Column('started_at', verbose_name=_("Started"), filters=(keyvrm_time.time_html,))
    action = tables.Column('action', verbose_name=_("Action"))
    status = tables.Column('status', verbose_name=_("Status"), status=True, status_choices=HISTORY_STATUS_COLOURS,
                           display_choices=labels.choices(labels.HISTORY_STATUSES))
    message = tables.WrappingColumn('message', verbose_name=_("Message"), empty_value='')
    finished_at = tables.Column('finished_at', verbose_name=_("Finished"), filters=(keyvrm_time.time_html,))
    duration_s = tables.Column('duration_s', verbose_name=_("Duration"), filters=(keyvrm_time.duration_text,))

    def get_object_id(self, datum):
        return '%s-%s' % (datum['started_at'], datum['action'])

    class Meta(object):
        name = 'vm_history'
        verbose_name = _("History")
