"""The hypervisors table, a page at a time: KeyVRM state with since and why, Drain and Return to service for admins.

And a host's fencing record: a row per fencing method, its outcome and times.
"""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from horizon import tables
from keyvrmclient import states as api_states

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors
from keyvrm_dashboard import labels
from keyvrm_dashboard import paging
from keyvrm_dashboard import states
from keyvrm_dashboard.templatetags import keyvrm_time


def service_text(datum):
    """Nova's compute service as ``up/enabled``, with the forced-down flag and disabled reason."""
    service = datum.get('service')
    if not service:
        return '-'
    text = '%s/%s' % (labels.label(labels.SERVICE_STATES, service['state']),
                      labels.label(labels.SERVICE_STATUSES, service['status']))
    if service.get('forced_down'):
        text += ' %s' % _("forced down")
    if service.get('disabled_reason'):
        text += ' (%s)' % service['disabled_reason']
    return text


def host_link(datum):
    return reverse('horizon:admin:keyvrm_hypervisors:detail', args=[datum['host']])


def event_link(datum):
    if not datum.get('event_id'):
        return None
    return reverse('horizon:admin:keyvrm_aggregates:event', args=[datum['event_id']])


class DrainHost(tables.LinkAction):
    name = 'drain'
    verbose_name = _("Drain")
    url = 'horizon:admin:keyvrm_hypervisors:drain'
    classes = ('ajax-modal',)
    icon = 'sign-out'
    policy_rules = access.rules(access.HYPERVISOR_DRAIN)

    def allowed(self, request, datum=None):
        """Offered on an ok host (the only state the API drains)."""
        return datum is not None and datum.get('state') == 'ok'


class ReturnToService(tables.BatchAction):
    name = 'restore'
    icon = 'repeat'
    policy_rules = access.rules(access.HYPERVISOR_RESTORE)
    help_text = _("KeyVRM enables the host's compute service again and, on a draining host, cancels the"
                  " drain's moves that have not started.")

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Return to Service", "Return to Service", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Returned to Service", "Returned to Service", count)

    def allowed(self, request, datum=None):
        """Offered on a host KeyVRM says may be restored.

        The API's ``restorable``: fenced, maintenance, error, draining and drain_incomplete hosts.
        """
        return datum is not None and bool(datum.get('restorable'))

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.hypervisor_restore, obj_id)


class ReturnWithFailback(ReturnToService):
    name = 'restore_failback'
    help_text = _("As Return to Service, then KeyVRM brings back the VMs its drains and HA evacuations moved off"
                  " the host: live migrations to run on the event page, or run at once where the aggregate's"
                  " failback is auto. VMs deleted or moved elsewhere since stay where they are.")

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Return to Service with Failback", "Return to Service with Failback", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Returned to Service with Failback", "Returned to Service with Failback", count)

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.hypervisor_restore, obj_id, True)


class HypervisorFilter(paging.ServerFilter):
    """Hosts by KeyVRM state, aggregate or availability zone (the API filters them, one page at a time)."""

    name = 'filter_keyvrm_hypervisors'
    filter_choices = (('state', _("KeyVRM state ="), True), ('aggregate', _("Aggregate ="), True),
                      ('availability_zone', _("Availability zone ="), True))
    values = {'state': paging.one_of(_("KeyVRM state"), api_states.HYPERVISOR_STATES, labels.HOST_STATES)}


class HypervisorsTable(paging.PagedTable, tables.DataTable):
    host = tables.Column('host', verbose_name=_("Host"), link=host_link)
    availability_zone = tables.Column('availability_zone', verbose_name=_("Availability zone"), empty_value='-')
    aggregates = tables.Column('aggregates', verbose_name=_("Aggregates"), filters=(', '.join,))
    state = tables.Column('state', verbose_name=_("KeyVRM state"), status=True,
                          status_choices=states.HOST_STATE_COLOURS, display_choices=labels.choices(labels.HOST_STATES))
    since = tables.Column('state_since', verbose_name=_("Since"), filters=(keyvrm_time.time_html,))
    reason = tables.Column('reason', verbose_name=_("Why"), empty_value='')
    event = tables.Column('event_id', verbose_name=_("Event"), link=event_link, empty_value='-')
    service = tables.Column(service_text, verbose_name=_("Compute service"))

    def get_object_id(self, datum):
        return datum['host']

    class Meta(object):
        name = 'hypervisors'
        verbose_name = _("Hypervisors")
        status_columns = ('state',)
        row_actions = (DrainHost, ReturnToService, ReturnWithFailback)
        table_actions = (HypervisorFilter,)


class FencingStepsTable(tables.DataTable):
    """KeyVRM's fencing record of a host: one row per method (Ceph blocklist, BMC power off, Nova force-down)."""

    method = tables.Column('method', verbose_name=_("Method"))
    outcome = tables.Column('outcome', verbose_name=_("Outcome"), status=True,
                            status_choices=(('confirmed', True), ('failed', False)))
    message = tables.WrappingColumn('message', verbose_name=_("What the fencer said"), empty_value='')
    started = tables.Column('started_at', verbose_name=_("Started"), filters=(keyvrm_time.time_html,))
    finished = tables.Column('finished_at', verbose_name=_("Finished"), filters=(keyvrm_time.time_html,))

    def get_object_id(self, datum):
        return datum['method']

    class Meta(object):
        name = 'fencing'
        verbose_name = _("Fencing record (KeyVRM)")
        status_columns = ('outcome',)
