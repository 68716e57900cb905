"""Views of the Aggregates panel: they fetch from KeyVRM's API (one page per table) and hand over to tables."""

from django import http
from django import shortcuts
from django.urls import reverse
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from django.views import generic
from horizon import conf as horizon_conf
from horizon import exceptions
from horizon import forms
from horizon import messages
from horizon import tables
from horizon import tabs
from horizon import views as horizon_views

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import charts
from keyvrm_dashboard.content.aggregates import event_tables
from keyvrm_dashboard.content.aggregates import event_tabs
from keyvrm_dashboard.content.aggregates import forms as aggregate_forms
from keyvrm_dashboard.content.aggregates import tables as aggregate_tables
from keyvrm_dashboard import outcomes
from keyvrm_dashboard import paging

INDEX_URL = reverse_lazy('horizon:admin:keyvrm_aggregates:index')
# How often the aggregate page asks for its current event, outcome and events again (at most, when unchanged).
LIVE_MAX_INTERVAL_MS = 15000


class IndexView(paging.PagedView, tables.DataTableView):
    """Availability zones (links) and one page of the aggregates of the chosen one (?availability_zone=)."""

    table_class = aggregate_tables.AggregatesTable
    template_name = 'admin/keyvrm_aggregates/index.html'
    page_title = _("KeyVRM: availability zones and aggregates")

    def selected_zone(self):
        return self.request.GET.get('availability_zone') or None

    def get_data(self):
        request = self.request

        def fetch(limit, marker, backwards):
            return keyvrm.aggregate_list(request, availability_zone=self.selected_zone(), limit=limit, marker=marker,
                                         sort_dir='desc' if backwards else None)
        try:
            aggregates = self.page(self.table_class, fetch)
            cycle = outcomes.latest_cycle(request)
        except Exception:
            exceptions.handle(request, _("Unable to retrieve KeyVRM's aggregates."))
            return []
        by_aggregate = outcomes.outcomes_by_aggregate(cycle)
        for aggregate in aggregates:
            aggregate['last_outcome'] = outcomes.outcome_text(cycle, by_aggregate.get(aggregate['name']), aggregate)
        return aggregates

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        try:
            context['zones'] = keyvrm.availability_zone_list(self.request)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve availability zones."))
            context['zones'] = []
        context['selected_zone'] = self.selected_zone()
        return context


def events_page(view, report=True):
    """One page of the aggregate's events with the table's server filter (the view is a PagedView).

    ``report``: a filter value the API would refuse and an API error are messages and no
    events (the page); else the value gives no events and the error is raised (the live
    fragment, polled: no message piles up per poll).
    """
    request, table = view.request, view.get_tables()['events']
    view.update_server_filter_action(request, table=table)
    try:
        filters = table._meta._filter_action.api_filters(table)
    except paging.FilterValueError as error:
        if report:
            messages.error(request, str(error))
        return []

    def fetch(limit, marker, backwards):
        return keyvrm.event_list(request, view.kwargs['name'], limit=limit, marker=marker,
                                 sort_dir='asc' if backwards else 'desc', **filters)
    if not report:
        return view.page(aggregate_tables.EventsTable, fetch)
    try:
        return view.page(aggregate_tables.EventsTable, fetch)
    except Exception:
        exceptions.handle(request, _("Unable to retrieve the aggregate's events."))
        return []


def live_context(aggregate):
    """What the live parts of the aggregate page show: current event, latest outcome (from one aggregate read)."""
    latest = aggregate.get('latest_outcome')
    return {'aggregate': aggregate, 'latest': latest, 'outcomes': outcomes.own_runs(latest),
            'outcome_text': outcomes.outcome_text(None, [], aggregate)}


class DetailView(paging.PagedView, tables.MultiTableView):
    """One aggregate: config, current event, a page of events, latest outcome, load chart, a page of its hosts."""

    table_classes = (aggregate_tables.EventsTable, aggregate_tables.AggregateHostsTable)
    template_name = 'admin/keyvrm_aggregates/detail.html'
    page_title = _("Aggregate {{ aggregate.name }}")

    def aggregate(self):
        if not hasattr(self, '_aggregate'):
            try:
                self._aggregate = keyvrm.aggregate_get(self.request, self.kwargs['name'])
            except Exception:
                exceptions.handle(self.request, _("Unable to retrieve aggregate %s.") % self.kwargs['name'],
                                  redirect=INDEX_URL)
        return self._aggregate

    def post(self, request, *args, **kwargs):
        """A changed events filter goes back to the events' first page (as DataTableView does); else as GET."""
        if self.handle_server_filter(request, table=self.get_tables()['events']):
            query = request.GET.copy()
            for name in ('events_marker', 'events_prev_marker'):
                query.pop(name, None)
            return shortcuts.redirect(request.path + ('?' + query.urlencode() if query else ''))
        return super().post(request, *args, **kwargs)

    def get_events_data(self):
        return events_page(self)

    def get_agg_hosts_data(self):
        def fetch(limit, marker, backwards):
            return keyvrm.hypervisor_list(self.request, aggregate=self.kwargs['name'], limit=limit, marker=marker,
                                          sort_dir='desc' if backwards else None)
        try:
            return self.page(aggregate_tables.AggregateHostsTable, fetch)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the aggregate's hosts."))
            return []

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        aggregate = self.aggregate()
        context.update(live_context(aggregate))
        context['load'], context['load_chart'] = self.load_chart(aggregate['name'])
        context['load_rows'] = charts.table_rows(context['load']) if context['load'] else []
        context['load_hugepages'] = bool(context['load']) and charts.has_hugepages(context['load']['hosts'])
        context['live_url'] = live_url(self.request, aggregate['name'])
        context['live_max_interval_ms'] = LIVE_MAX_INTERVAL_MS
        context['poll_interval_ms'] = horizon_conf.HORIZON_CONFIG['ajax_poll_interval']
        return context

    def load_chart(self, name):
        """(the API's per-host load, its SVG chart); no chart before a first snapshot or on an API error."""
        try:
            load = keyvrm.aggregate_load(self.request, name)
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the aggregate's load."))
            return None, None
        if not load['hosts']:
            return load, None
        return load, charts.render(charts.layout(load), name)


def live_url(request, name):
    """The live parts' URL of the aggregate page, asking for the same page and filter of events as the page."""
    query = request.GET.urlencode()
    url = reverse('horizon:admin:keyvrm_aggregates:live', args=[name])
    return url + ('?' + query if query else '')


class LiveView(paging.PagedView, tables.MultiTableView):
    """The aggregate page's current event, latest outcome and events table, as the page's script fetches them again.

    Two API calls: the aggregate (its current event and latest outcome) and one page of
    its events. An API error is the answer's status (the script then stops asking).
    """

    table_classes = (aggregate_tables.EventsTable,)
    template_name = 'admin/keyvrm_aggregates/_aggregate_live.html'

    def get(self, request, *args, **kwargs):
        try:
            self._aggregate = keyvrm.aggregate_get(request, kwargs['name'])
            return super().get(request, *args, **kwargs)
        except keyvrm.ClientError as error:
            return http.HttpResponse(status=error.status)

    def get_events_data(self):
        return events_page(self, report=False)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(live_context(self._aggregate))
        return context


class EditView(access.PolicyRequired, forms.ModalFormView):
    """The modal Edit configuration form of one aggregate; Save goes back to the index's zone and page."""

    policy_rules = access.rules(access.AGGREGATE_UPDATE)
    form_class = aggregate_forms.EditAggregateForm
    form_id = 'edit_aggregate_form'
    template_name = 'admin/keyvrm_aggregates/edit.html'
    modal_header = _("Edit configuration")
    submit_label = _("Save")
    submit_url = 'horizon:admin:keyvrm_aggregates:edit'
    success_url = INDEX_URL
    page_title = _("Edit configuration")

    def get_initial(self):
        try:
            return aggregate_forms.initial_of(keyvrm.aggregate_get(self.request, self.kwargs['name']))
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve aggregate %s.") % self.kwargs['name'],
                              redirect=INDEX_URL)

    def back_query(self):
        """The index's zone and page the form was opened from (a query string, '' for none)."""
        query = aggregate_tables.index_query(self.request)
        return '?' + query if query else ''

    def get_success_url(self):
        return str(INDEX_URL) + self.back_query()

    def get_cancel_url(self):
        return self.get_success_url()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['submit_url'] = reverse(self.submit_url, args=[self.kwargs['name']]) + self.back_query()
        return context


def journal_of(recommendation, operations):
    """What ``_event_journal.html`` shows of one recommendation: it, its status label, operations, whether it ended."""
    return {'recommendation': recommendation, 'operations': operations,
            'status': event_tables.status_label(recommendation['status']),
            'final': event_tables.recommendation_is_final(recommendation)}


class EventView(tabs.TabbedTableView):
    """One event as tabs (Overview, Recommendations, No target), refreshed live; a journal opens on demand.

    The page makes a constant number of API calls whatever the number of recommendations:
    the event, and one page of its recommendations with their latest journal lines.
    """

    tab_group_class = event_tabs.EventTabs
    template_name = 'admin/keyvrm_aggregates/event.html'
    page_title = _("Event {{ event.id }}")

    def event(self):
        if not hasattr(self, '_event'):
            try:
                self._event = keyvrm.event_get(self.request, self.kwargs['event_id'])
            except Exception:
                exceptions.handle(self.request, _("Unable to retrieve event %s.") % self.kwargs['event_id'],
                                  redirect=INDEX_URL)
        return self._event

    def get_tabs(self, request, **kwargs):
        if self._tab_group is None:
            self._tab_group = self.tab_group_class(request, event=self.event(), **kwargs)
        return self._tab_group

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['event'] = self.event()
        context['poll_interval_ms'] = horizon_conf.HORIZON_CONFIG['ajax_poll_interval']
        return context


class _LivePart(generic.TemplateView):
    """A part of the event page that its script fetches again until it is final; an API error is its status."""

    def get(self, request, *args, **kwargs):
        try:
            return super().get(request, *args, **kwargs)
        except keyvrm.ClientError as error:
            return http.HttpResponse(status=error.status)


class EventSummaryView(_LivePart):
    """The event page's summary and no-target entries as one fragment (each part replaced by its id)."""

    template_name = 'admin/keyvrm_aggregates/_event_live.html'

    def get_context_data(self, **kwargs):
        known = self.request.GET.get('known')
        event = keyvrm.event_get(self.request, self.kwargs['event_id'])
        return {'summary': event_tabs.summary_of(event, known=int(known) if known and known.isdigit() else None)}


class EventRecommendationsView(_LivePart):
    """The rows of one page of the recommendations table (the same ``?marker=``), from one API call."""

    template_name = 'admin/keyvrm_aggregates/_event_recommendation_rows.html'

    def get_context_data(self, **kwargs):
        event_id = self.kwargs['event_id']
        recommendations, _more = event_tabs.recommendation_page(self.request, event_id)
        table = event_tables.RecommendationsTable(self.request, data=recommendations, event_id=event_id)
        return {'live': event_tabs.recommendations_live(self.request, event_id, recommendations),
                'rows': table.get_rows()}


class EventJournalView(_LivePart):
    """One recommendation's operations journal, as a fragment its page fetches again until it ends."""

    template_name = 'admin/keyvrm_aggregates/_event_journal.html'

    def get_context_data(self, **kwargs):
        recommendation = keyvrm.recommendation_get(self.request, self.kwargs['recommendation_id'])
        return {'journal': journal_of(recommendation, keyvrm.operation_list(self.request, recommendation['id']))}


class RecommendationView(horizon_views.HorizonTemplateView):
    """One recommendation of an event and its whole operations journal, opened from the event page."""

    template_name = 'admin/keyvrm_aggregates/recommendation.html'
    page_title = _("Journal of {{ name }}")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        event_url = reverse('horizon:admin:keyvrm_aggregates:event', args=[self.kwargs['event_id']])
        try:
            recommendation = keyvrm.recommendation_get(self.request, self.kwargs['recommendation_id'])
            operations = keyvrm.operation_list(self.request, recommendation['id'])
        except Exception:
            exceptions.handle(self.request, _("Unable to retrieve the journal of recommendation %s.")
                              % self.kwargs['recommendation_id'], redirect=event_url)
        context.update(journal=journal_of(recommendation, operations), recommendation=recommendation,
                       event_url=event_url, name=event_tables.display_name(recommendation),
                       status=event_tables.status_label(recommendation['status']),
                       poll_interval_ms=horizon_conf.HORIZON_CONFIG['ajax_poll_interval'])
        return context
