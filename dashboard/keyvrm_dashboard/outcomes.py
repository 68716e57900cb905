"""An aggregate's latest outcome: why KeyVRM did or did not act on it, from its own records only."""

from django.utils.translation import gettext as _

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard import labels
from keyvrm_dashboard import reason_groups
from keyvrm_dashboard import states

# A fast-path cycle judges only the aggregates of a failed host; the periodic one judges all.
FAST_PATH = 'fast_path'
NEWEST_CYCLES_LOOKED_AT = 10


def latest_cycle(request):
    """The newest finished periodic cycle with its outcomes, or None when KeyVRM has not finished one yet."""
    for cycle in keyvrm.cycle_list(request, limit=NEWEST_CYCLES_LOOKED_AT):
        if cycle.get('status') in states.CYCLE_FINISHED and cycle.get('reason_code') != FAST_PATH:
            return keyvrm.cycle_get(request, cycle['id'])
    return None


def outcomes_by_aggregate(cycle):
    """``{aggregate name: [outcome, ...]}`` of ``cycle`` (empty without a cycle)."""
    result = {}
    for outcome in (cycle or {}).get('outcomes', []):
        result.setdefault(outcome['aggregate_name'], []).append(outcome)
    return result


def own_runs(latest_outcome):
    """The runs of an aggregate's own latest outcome (API 1.2): its no-op outcomes, then its events; [] before one."""
    if not latest_outcome:
        return []
    return list(latest_outcome.get('outcomes', [])) + list(latest_outcome.get('events', []))


def outcome_text(cycle, outcomes, aggregate):
    """One line saying what KeyVRM last decided for ``aggregate``, and why; never another aggregate's reason.

    The aggregate's own no-op outcomes of the latest cycle first (``LB: too early ...``);
    a cycle that processed nothing (KeyVRM disabled) says its own reason, which holds for
    every aggregate; an aggregate KeyVRM does not process says why from its config (NOOP
    and its reason, no marker); else its last event's reason.
    """
    if outcomes:
        return '; '.join('%s: %s' % (labels.label(labels.OUTCOME_KINDS, o['kind']), reason_groups.summary_line(o))
                         for o in outcomes)
    if cycle and cycle.get('status') == 'skipped' and cycle.get('reason'):
        return cycle['reason']
    if not aggregate.get('marker'):
        return _("aggregate %s has no HA/LB marker: KeyVRM only watches it") % aggregate['name']
    if aggregate.get('no_op_mode'):
        return _("aggregate in NOOP: %s") % (aggregate.get('no_op_reason') or _("no reason given"))
    last_event = aggregate.get('last_event')
    return reason_groups.summary_line(last_event) if last_event else ''
