"""The recommendations table of an event page: load calculation, Run and Cancel for manual ones."""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from horizon import tables

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors
from keyvrm_dashboard import states

LOAD_MEASURES = ('syn_score', 'cpu', 'ram', 'net')


def recommendation_is_final(recommendation):
    """Whether a recommendation has ended (its row and journal no longer change)."""
    return recommendation['status'] in states.RECOMMENDATION_FINAL


def event_is_final(event):
    """Whether an event and every one of its recommendations (counted by status in the event) have ended."""
    counts = event.get('recommendations') or {}
    return event['status'] in states.EVENT_FINAL and all(
        status in states.RECOMMENDATION_FINAL for status, count in counts.items() if count)


def side_text(side):
    """``syn_score 85.0 -> 70.2, cpu ...`` of one host of an LB load calculation, rounded to 0.1 %."""
    if not side:
        return ''
    parts = []
    for measure in LOAD_MEASURES:
        before, after = side.get('%s_before_pct' % measure), side.get('%s_after_pct' % measure)
        if before is None and after is None:
            continue
        parts.append('%s %s -> %s' % (measure, _rounded(before), _rounded(after)))
    return ', '.join(parts)


def _rounded(pct):
    return '-' if pct is None else '%.1f%%' % pct


def source_load(datum):
    return side_text((datum.get('load_calculation') or {}).get('source'))


def target_load(datum):
    return side_text((datum.get('load_calculation') or {}).get('target'))


def move_text(datum):
    return '%s -> %s' % (datum['source_host'], datum.get('target_host') or _("(no target)"))


class RunRecommendation(tables.BatchAction):
    name = 'run'
    icon = 'play'

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Run Recommendation", "Run Recommendations", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Queued Recommendation", "Queued Recommendations", count)

    def allowed(self, request, datum=None):
        """Offered only on a manual recommendation, to users who may change things."""
        return access.may_change(request) and datum is not None and datum['status'] == states.MANUAL_ACTION

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.recommendation_run, obj_id)


class CancelRecommendation(tables.BatchAction):
    name = 'cancel'
    icon = 'remove'
    action_type = 'danger'

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Cancel Recommendation", "Cancel Recommendations", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Cancelled Recommendation", "Cancelled Recommendations", count)

    def allowed(self, request, datum=None):
        """Offered only on a manual recommendation, to users who may change things."""
        return access.may_change(request) and datum is not None and datum['status'] == states.MANUAL_ACTION

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.recommendation_cancel, obj_id)


class RecommendationRow(tables.Row):
    """A recommendation row that refreshes itself until the recommendation ends."""

    ajax = True

    def get_data(self, request, recommendation_id):
        return keyvrm.recommendation_get(request, recommendation_id)


class RecommendationsTable(tables.DataTable):
    vm = tables.Column('vm_id', verbose_name=_("VM"),
                       link=lambda datum: reverse('horizon:admin:keyvrm_vms:detail', args=[datum['vm_id']]))
    action = tables.Column('action', verbose_name=_("Action"))
    move = tables.Column(move_text, verbose_name=_("Source -> target"))
    ha_round = tables.Column('ha_round', verbose_name=_("Round"), empty_value='-')
    status = tables.Column('status', verbose_name=_("Status"), status=True,
                           status_choices=states.RECOMMENDATION_STATUS_COLOURS)
    attempts = tables.Column('attempts', verbose_name=_("Attempts"))
    source_load = tables.WrappingColumn(source_load, verbose_name=_("Source load before -> after"))
    target_load = tables.WrappingColumn(target_load, verbose_name=_("Target load before -> after"))
    reason = tables.WrappingColumn('reason', verbose_name=_("Reason"), empty_value='')

    def get_object_id(self, datum):
        return datum['id']

    class Meta(object):
        name = 'recommendations'
        verbose_name = _("Recommendations")
        status_columns = ('status',)
        row_class = RecommendationRow
        row_actions = (RunRecommendation, CancelRecommendation)
