"""An event's or a cycle outcome's reasons as the panels show them: one text, grouped by code as the CLI groups them.

From API microversion 1.1 reasons are a list of entries (``reasons``, with ``more_reasons``
counting what the API left out per code); the tables and templates show one text per
record in its ``reason`` key, as they did with 1.0's text. The grouping (one line per
code, a code's entries under it, ``(+N more)``) is python-keyvrmclient's, so Horizon and
``openstack keyvrm event show`` say the same.
"""

from keyvrmclient.osc.v1 import reasons as client_reasons


def reason_text(record):
    """The record's reasons as lines grouped by code, or its 1.0 ``reason`` text; '' when it has none."""
    if 'reasons' not in record:
        return record.get('reason') or ''
    groups = client_reasons.groups(record['reasons'], record.get('more_reasons'))
    return '\n'.join(line for code, entries, left_out in groups
                     for line in client_reasons.group_lines(code, entries, left_out))


def with_reason(record):
    """``record`` with its reasons as ``reason`` text too (what the panels show); None stays None."""
    if record is None:
        return None
    return dict(record, reason=reason_text(record))


def aggregate_with_reasons(aggregate):
    """An aggregate whose last and current event and latest outcome (its outcomes and events) carry ``reason`` text."""
    aggregate = dict(aggregate, last_event=with_reason(aggregate.get('last_event')),
                     current_event=with_reason(aggregate.get('current_event')))
    latest = aggregate.get('latest_outcome')
    if latest:
        aggregate['latest_outcome'] = dict(latest, outcomes=[with_reason(o) for o in latest.get('outcomes', [])],
                                           events=[with_reason(e) for e in latest.get('events', [])])
    return aggregate


def cycle_with_reasons(cycle):
    """A cycle whose outcomes carry ``reason`` text (the cycle's own ``reason`` is text at every microversion)."""
    return dict(cycle, outcomes=[with_reason(o) for o in cycle.get('outcomes', [])])
