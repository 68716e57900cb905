"""The tabs of an event page, as Horizon's instance detail has them: Overview, Recommendations, No target.

The tab group gets the event from the view (one API call); the Recommendations tab reads
one page of the event's recommendations, each with its latest journal line (one call,
API 1.9). A recommendation's whole journal is a page of its own, opened from its row.
"""

from urllib import parse

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from horizon import exceptions
from horizon import tabs
from horizon.utils import functions as horizon_utils

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.aggregates import event_tables
from keyvrm_dashboard import labels


def recommendation_count(event):
    """How many recommendations the event has (the API counts them by status)."""
    return sum((event.get('recommendations') or {}).values())


def summary_of(event, known=None):
    """What ``_event_summary.html`` and ``_event_no_target.html`` show of an event, and where to fetch them again.

    The event, whether it ended, its recommendations counted by status as operators read the
    statuses, its no-target entries (none from older APIs), the number of recommendations a
    later HA round added since the page was loaded with ``known`` of them, and the URL of
    the fragment that shows both parts again (it carries ``known``).
    """
    counts = [(labels.label(labels.RECOMMENDATION_STATUSES, status), count)
              for status, count in (event.get('recommendations') or {}).items()]
    total = recommendation_count(event)
    live_url = reverse('horizon:admin:keyvrm_aggregates:event_summary', args=[event['id']])
    if known is not None:
        live_url += '?' + parse.urlencode({'known': known})
    return {'event': event, 'final': event_tables.event_is_final(event), 'no_target': event.get('no_target') or [],
            'counts': counts, 'live_url': live_url,
            'new_recommendations': max(0, total - known) if known is not None else 0}


def recommendation_page(request, event_id):
    """The page of an event's recommendations the request asks for (``?marker=``), Horizon's page size.

    (recommendations each with its latest journal line, whether more follow): one API call.
    """
    marker = request.GET.get(event_tables.RecommendationsTable._meta.pagination_param) or None
    return keyvrm.recommendation_page(request, event_id, horizon_utils.get_page_size(request), marker=marker)


def recommendations_live(request, event_id, recommendations):
    """The live part of a recommendations page: the URL of its rows (the same page) and whether all have ended."""
    marker_name = event_tables.RecommendationsTable._meta.pagination_param
    url = reverse('horizon:admin:keyvrm_aggregates:event_recommendations', args=[event_id])
    marker = request.GET.get(marker_name)
    if marker:
        url += '?' + parse.urlencode({marker_name: marker})
    return {'url': url, 'final': all(event_tables.recommendation_is_final(r) for r in recommendations)}


class OverviewTab(tabs.Tab):
    name = _("Overview")
    slug = 'overview'
    template_name = 'admin/keyvrm_aggregates/_event_overview.html'

    def get_context_data(self, request):
        event = self.tab_group.kwargs['event']
        return {'summary': summary_of(event, known=recommendation_count(event))}


class RecommendationsTab(tabs.TableTab):
    name = _("Recommendations")
    slug = 'recommendations'
    table_classes = (event_tables.RecommendationsTable,)
    template_name = 'admin/keyvrm_aggregates/_event_recommendations.html'

    def get_recommendations_data(self):
        event_id = self.tab_group.kwargs['event_id']
        try:
            recommendations, self._more = recommendation_page(self.request, event_id)
        except Exception:
            recommendations, self._more = [], False
            exceptions.handle(self.request, _("Unable to retrieve the event's recommendations."))
        self._live = recommendations_live(self.request, event_id, recommendations)
        return recommendations

    def has_more_data(self, table):
        return getattr(self, '_more', False)

    def get_context_data(self, request, **kwargs):
        context = super().get_context_data(request, **kwargs)
        context['live'] = self._live
        return context


class NoTargetTab(tabs.Tab):
    """The VMs (HA) or overloaded hosts (LB) the event found no target for, with each rejected host's check."""

    name = _("No target")
    slug = 'no_target'
    template_name = 'admin/keyvrm_aggregates/_event_no_target.html'

    def allowed(self, request):
        return bool(self.tab_group.kwargs['event'].get('no_target'))

    def get_context_data(self, request):
        event = self.tab_group.kwargs['event']
        return {'summary': summary_of(event, known=recommendation_count(event))}


class EventTabs(tabs.DetailTabsGroup):
    slug = 'event_details'
    tabs = (OverviewTab, RecommendationsTab, NoTargetTab)
    sticky = True

    def get_selected_tab(self):
        """The tab ``?tab=`` names; the recommendations when a later page of them is asked for."""
        selected = super().get_selected_tab()
        marker_name = event_tables.RecommendationsTable._meta.pagination_param
        if selected is None and self.request.GET.get(marker_name):
            return self.get_tab(RecommendationsTab.slug)
        return selected
