"""The latest cycle and its per-aggregate outcomes: why nothing happened on an aggregate."""

from keyvrm_dashboard.api import keyvrm


def latest_cycle(request):
    """The newest cycle with its outcomes, or None when KeyVRM has not run a cycle yet."""
    cycles = keyvrm.cycle_list(request, limit=1)
    if not cycles:
        return None
    return keyvrm.cycle_get(request, cycles[0]['id'])


def outcomes_by_aggregate(cycle):
    """``{aggregate name: [outcome, ...]}`` of ``cycle`` (empty without a cycle)."""
    result = {}
    for outcome in (cycle or {}).get('outcomes', []):
        result.setdefault(outcome['aggregate_name'], []).append(outcome)
    return result


def outcome_text(cycle, outcomes, last_event):
    """One line saying what KeyVRM last decided for an aggregate, and why.

    The latest cycle's no-op outcomes first (``LB: too early ...``); a cycle that ended
    without processing (KeyVRM disabled) says its own reason; else the last event's reason.
    """
    if outcomes:
        return '; '.join('%s: %s' % (o['kind'], o['reason']) for o in outcomes)
    if cycle and cycle.get('reason'):
        return cycle['reason']
    if last_event:
        return last_event.get('reason') or ''
    return ''
