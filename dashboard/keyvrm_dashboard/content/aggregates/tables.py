"""Tables of the Aggregates panel: aggregates of a zone, an aggregate's events and its hosts, each paged."""

import urllib.parse

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from horizon import tables
from keyvrmclient import states as api_states

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import labels
from keyvrm_dashboard import paging
from keyvrm_dashboard import reason_groups
from keyvrm_dashboard import states
from keyvrm_dashboard.templatetags import keyvrm_time

# The query parameters of the index that Edit carries to its form and back (the zone, the page).
INDEX_QUERY = ('availability_zone', 'marker', 'prev_marker')


def yes_no(value):
    """'Yes' or 'No' for a boolean column."""
    return _("Yes") if value else _("No")


def failover_of(datum):
    """``tolerance/reserve`` the last cycle found, with "below reserve" when short; '' when not analysed."""
    tolerance = datum.get('failover_tolerance')
    if tolerance is None:
        return ''
    shown = '%d/%d' % (tolerance, datum.get('ha_failover_reserve', 0))
    return _("%s (below reserve)") % shown if datum.get('failover_short') else shown


def lb_level_of(datum):
    """The LB level, with * when a threshold was changed after the level was chosen."""
    level = datum.get('lb_level')
    if level is None:
        return ''
    return '%d*' % level if datum.get('lb_level_overridden') else str(level)


def aggregate_url(datum):
    return reverse('horizon:admin:keyvrm_aggregates:detail', args=[datum['name']])


def hosts_url(datum):
    """The hypervisors panel filtered by this aggregate (its filter box shows it)."""
    return '%s?%s' % (reverse('horizon:admin:keyvrm_hypervisors:index'),
                      urllib.parse.urlencode({'aggregate': datum['name']}))


def host_count_of(datum):
    """``6 hosts``; '' from an API that does not count them."""
    count = datum.get('host_count')
    if count is None:
        return ''
    return ngettext("%(count)d host", "%(count)d hosts", count) % {'count': count}


def index_query(request):
    """The index's zone and page as a query string ('' for none), for links that come back to it."""
    kept = [(name, request.GET[name]) for name in INDEX_QUERY if request.GET.get(name)]
    return urllib.parse.urlencode(kept)


def event_url(datum):
    return reverse('horizon:admin:keyvrm_aggregates:event', args=[datum['id']])


class EditAggregate(tables.LinkAction):
    name = 'edit'
    verbose_name = _("Edit configuration")
    url = 'horizon:admin:keyvrm_aggregates:edit'
    classes = ('ajax-modal',)
    icon = 'pencil'
    policy_rules = access.rules(access.AGGREGATE_UPDATE)

    def get_link_url(self, datum=None):
        """The form, carrying the index's zone and page so that Save comes back to them."""
        url = reverse(self.url, args=[datum['name']])
        query = index_query(self.table.request)
        return '%s?%s' % (url, query) if query else url


class AggregatesTable(paging.PagedTable, tables.DataTable):
    name = tables.WrappingColumn('name', verbose_name=_("Name"), link=aggregate_url)
    availability_zone = tables.Column('availability_zone', verbose_name=_("Availability zone"))
    marker = tables.Column('marker', verbose_name=_("Marker"), empty_value=_("(none)"))
    no_op_mode = tables.Column('no_op_mode', verbose_name=_("NOOP"), filters=(yes_no,))
    no_op_reason = tables.WrappingColumn('no_op_reason', verbose_name=_("NOOP reason"))
    last_state = tables.Column('last_event_state', verbose_name=_("Last event state"), status=True,
                               status_choices=states.EVENT_STATE_COLOURS, empty_value=_("(none)"),
                               display_choices=labels.choices(labels.EVENT_STATES))
    last_outcome = tables.Column('last_outcome', verbose_name=_("Last outcome"))
    failover = tables.Column(failover_of, verbose_name=_("Failover tolerance/reserve"), empty_value='',
                             help_text=_("How many host failures the last cycle found HA absorbs, against the"
                                         " aggregate's failover reserve"))
    lb_level = tables.Column(lb_level_of, verbose_name=_("LB level"), empty_value='',
                             help_text=_("The LB dial, 1 (only hosts at a ceiling) to 5 (balance); * when a"
                                         " threshold was changed after the level was chosen"))
    hosts = tables.Column(host_count_of, verbose_name=_("Hosts"), link=hosts_url, empty_value='-',
                          help_text=_("How many hosts Nova lists in the aggregate; the link lists them on the"
                                      " Hypervisors panel"))

    def get_object_id(self, datum):
        return datum['name']

    class Meta(object):
        name = 'aggregates'
        verbose_name = _("Host aggregates")
        status_columns = ('last_state',)
        row_actions = (EditAggregate,)


class EventRow(tables.Row):
    """An event row that refreshes itself (Horizon's ajax row update) until the event completes."""

    ajax = True

    def get_data(self, request, event_id):
        return keyvrm.event_get(request, event_id)


class EventFilter(paging.ServerFilter):
    """The events by kind, status, state or creation time (the API filters them, one page at a time)."""

    name = 'filter_keyvrm_events'
    filter_choices = (('kind', _("Kind ="), True), ('status', _("Status ="), True), ('state', _("State ="), True),
                      ('since', _("Created since"), True, _("A date, or a date and time, in your time zone")))
    values = {'kind': paging.one_of(_("Kind"), api_states.EVENT_KINDS, labels.EVENT_KINDS),
              'status': paging.one_of(_("Status"), api_states.EVENT_STATUSES, labels.EVENT_STATUSES),
              'state': paging.one_of(_("State"), api_states.EVENT_STATES, labels.EVENT_STATES),
              'since': paging.since_value}


class _OnTheAggregatePage(object):
    """A table of the aggregate page whose form posts to that page, also when the live fragment drew it."""

    def get_absolute_url(self):
        return reverse('horizon:admin:keyvrm_aggregates:detail', args=[self.kwargs['name']])

    def get_full_url(self):
        query = self.request.GET.urlencode()
        return self.get_absolute_url() + ('?' + query if query else '')


class EventsTable(_OnTheAggregatePage, paging.PagedTable, tables.DataTable):
    id = tables.Column('id', verbose_name=_("ID"), link=event_url)
    kind = tables.Column('kind', verbose_name=_("Kind"), display_choices=labels.choices(labels.EVENT_KINDS))
    status = tables.Column('status', verbose_name=_("Status"), status=True, status_choices=states.EVENT_STATUS_DONE,
                           display_choices=labels.choices(labels.EVENT_STATUSES))
    marker = tables.Column('marker', verbose_name=_("Marker"))
    state = tables.Column('state', verbose_name=_("State"), empty_value='-',
                          display_choices=labels.choices(labels.EVENT_STATES))
    reason = tables.Column(reason_groups.summary_line, verbose_name=_("Reason"), empty_value='')
    created = tables.Column('created_at', verbose_name=_("Created"), filters=(keyvrm_time.time_html,))

    def get_object_id(self, datum):
        return datum['id']

    class Meta(object):
        name = 'events'
        verbose_name = _("Events")
        status_columns = ('status',)
        row_class = EventRow
        table_actions = (EventFilter,)
        pagination_param = 'events_marker'
        prev_pagination_param = 'events_prev_marker'


class AggregateHostsTable(_OnTheAggregatePage, paging.PagedTable, tables.DataTable):
    host = tables.Column('host', verbose_name=_("Host"))
    state = tables.Column('state', verbose_name=_("KeyVRM state"), status=True,
                          status_choices=states.HOST_STATE_COLOURS, display_choices=labels.choices(labels.HOST_STATES))
    since = tables.Column('state_since', verbose_name=_("Since"), filters=(keyvrm_time.time_html,))
    reason = tables.Column('reason', verbose_name=_("Why"), empty_value='')

    def get_object_id(self, datum):
        return datum['host']

    class Meta(object):
        name = 'agg_hosts'
        verbose_name = _("Hosts")
        status_columns = ('state',)
        pagination_param = 'hosts_marker'
        prev_pagination_param = 'hosts_prev_marker'
