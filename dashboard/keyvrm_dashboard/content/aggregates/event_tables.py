"""The recommendations table of an event page: where each move stands, its load calculation, Run and Cancel.

Run and Cancel act on one manual recommendation (row) or on the selected ones (table),
each after a confirmation that names every VM with its source and target (the row's
display name) and says how many and what will happen. ``manual_action`` is drawn as a
"waiting for operator" badge: the operator's turn, not work in progress.
"""

import functools

from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from horizon import tables
from horizon.tables import base as tables_base

from keyvrm_dashboard import access
from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import api_errors
from keyvrm_dashboard import labels
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


def display_name(datum):
    """"VM x: source -> target": how a confirmation and the result message name a recommendation."""
    return _("VM %(vm)s: %(move)s") % {'vm': datum['vm_id'], 'move': move_text(datum)}


WAITING_CLASS = 'keyvrm-waiting-operator'


def status_label(status):
    """The status as a label: a badge for manual_action, a turning icon while it runs, else the word."""
    label = labels.label(labels.RECOMMENDATION_STATUSES, status)
    if status == states.MANUAL_ACTION:
        return format_html('<span class="label label-info {}">{}</span>', WAITING_CLASS, label)
    if status == 'running':
        return format_html('<span class="fa fa-spinner fa-spin" aria-hidden="true"></span> {}', label)
    return label


def journal_url(datum):
    return reverse('horizon:admin:keyvrm_aggregates:recommendation', args=[datum['event_id'], datum['id']])


def latest_step(datum):
    """``kind #attempt: message`` of the newest journal line (its error when it has one); "not started" before one."""
    line = datum.get('latest_operation')
    if not line:
        return _("not started")
    text = line.get('error') or line.get('message')
    step = '%s #%s' % (labels.label(labels.OPERATION_KINDS, line['kind']), line['attempt'])
    return '%s: %s' % (step, text) if text else step


class _ManualRecommendationAction(tables.BatchAction):
    """Offered on the table to users whom its ``policy_rules`` let, and on a row that waits for the operator.

    A confirmation (``keyvrm-confirm``: the event page's script) names each selected VM with
    its source and target, how many are selected and, in ``help_text``, what will happen.
    """

    def get_default_classes(self):
        """Horizon's classes and ``keyvrm-confirm`` (table buttons are drawn with the default classes only)."""
        return tuple(super().get_default_classes()) + ('keyvrm-confirm',)

    def allowed(self, request, datum=None):
        return datum is None or datum['status'] == states.MANUAL_ACTION


class RunRecommendation(_ManualRecommendationAction):
    name = 'run'
    icon = 'play'
    policy_rules = access.rules(access.RECOMMENDATION_RUN)
    help_text = _("KeyVRM queues each one and moves its VM from the source host to the target host, as listed;"
                  " the journal of each says how it went.")

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Run Recommendation", "Run Recommendations", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Queued Recommendation", "Queued Recommendations", count)

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.recommendation_run, obj_id)


class CancelRecommendation(_ManualRecommendationAction):
    name = 'cancel'
    icon = 'remove'
    policy_rules = access.rules(access.RECOMMENDATION_CANCEL)
    action_type = 'danger'
    help_text = _("Each VM stays where it is and the recommendation ends as cancelled; this cannot be undone.")

    @staticmethod
    def action_present(count):
        return ngettext_lazy("Cancel Recommendation", "Cancel Recommendations", count)

    @staticmethod
    def action_past(count):
        return ngettext_lazy("Cancelled Recommendation", "Cancelled Recommendations", count)

    def action(self, request, obj_id):
        api_errors.called_showing_detail(request, keyvrm.recommendation_cancel, obj_id)


class RecommendationRow(tables.Row):
    """A recommendation row; only one that waits for the operator can be selected (for Run and Cancel).

    Rows are refreshed together by the event page's script (one API call a round), not one
    call per row as Horizon's ajax rows would.
    """

    def can_be_selected(self, datum):
        return datum['status'] == states.MANUAL_ACTION and self.table.may_run_or_cancel

    @property
    def status_class(self):
        """Waiting for the operator is neither progress nor a fault: its own class, not Horizon's "warning"."""
        if self.datum['status'] == states.MANUAL_ACTION:
            return WAITING_CLASS
        return super().status_class


class RecommendationCell(tables_base.Cell):
    """The status cell of a recommendation waiting for the operator has its own class too, not "warning"."""

    def get_status_class(self, status):
        if self.datum['status'] == states.MANUAL_ACTION:
            return WAITING_CLASS
        return super().get_status_class(status)


class RecommendationsTable(tables.DataTable):
    vm = tables.Column('vm_id', verbose_name=_("VM"),
                       link=lambda datum: reverse('horizon:admin:keyvrm_vms:detail', args=[datum['vm_id']]))
    action = tables.Column('action', verbose_name=_("Action"),
                           display_choices=labels.choices(labels.RECOMMENDATION_ACTIONS))
    move = tables.Column(move_text, verbose_name=_("Source -> target"))
    ha_round = tables.Column('ha_round', verbose_name=_("Round"), empty_value='-')
    status = tables.Column('status', verbose_name=_("Status"), status=True,
                           status_choices=states.RECOMMENDATION_STATUS_COLOURS, filters=(status_label,))
    attempts = tables.Column('attempts', verbose_name=_("Attempts"))
    latest_step = tables.WrappingColumn(latest_step, verbose_name=_("Latest step"), link=journal_url,
                                        help_text=_("The newest line of its journal; the link opens the journal."))
    source_load = tables.WrappingColumn(source_load, verbose_name=_("Source load before -> after"))
    target_load = tables.WrappingColumn(target_load, verbose_name=_("Target load before -> after"))
    reason = tables.Column('reason', verbose_name=_("Reason"), empty_value='')

    def get_object_id(self, datum):
        return datum['id']

    def get_object_display(self, datum):
        return display_name(datum) if datum else None

    @functools.cached_property
    def may_run_or_cancel(self):
        """Whether KeyVRM's policy lets the user run or cancel recommendations (asked once per page)."""
        return any(access.allowed(self.request, rule)
                   for rule in (access.RECOMMENDATION_RUN, access.RECOMMENDATION_CANCEL))

    class Meta(object):
        name = 'recommendations'
        verbose_name = _("Recommendations")
        status_columns = ('status',)
        row_class = RecommendationRow
        cell_class = RecommendationCell
        table_actions = (RunRecommendation, CancelRecommendation)
        row_actions = (RunRecommendation, CancelRecommendation)
