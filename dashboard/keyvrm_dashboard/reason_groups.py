"""A record's reasons as the panels show them: one line per code with its heading and count, its first items, the rest
on demand, and the button the guide's "what to do" names.

An event's or a cycle outcome's reasons (API 1.1+: ``reasons`` entries and ``more_reasons``)
are grouped by code in the API's order (python-keyvrmclient's ``groups``: the most telling
code first). Within a code the entries keep the engine's order, which lists the worst first
(the most overloaded host, ...): the first ``SHOWN`` are items of the line, the others wait
behind "show all", and what the API left out is counted. An entry about the aggregate as a
whole (no host, no VM: "59 hypervisors of agg-a overloaded") is the line's summary, not an
item. A record from API 1.0 has only its ``reason`` text, shown as it comes.
"""

import dataclasses
from typing import Optional

from keyvrmclient.osc.v1 import reasons as client_reasons

from keyvrm_dashboard import labels

# Items of a code shown at once; the others behind "show all".
SHOWN = 5
# Codes whose "what to do" (the reason's text, the guide's diagnostics) is returning the entry's host to service
# (openstack keyvrm hypervisor restore): an HA-handled host, a host in error with VMs left, an unfinished drain.
RESTORE_CODES = frozenset({'already_handled', 'vms_remain', 'drain_incomplete'})
# Codes the guide fixes in the aggregate's configuration (openstack keyvrm aggregate set): NOOP, marker, storage mode.
EDIT_AGGREGATE_CODES = frozenset({'noop', 'no_marker', 'storage_undeclared'})


@dataclasses.dataclass(frozen=True)
class Group:
    """One code's line: its ``heading``, the aggregate-wide ``summary`` sentence if any, its ``items`` and the rest."""

    code: str
    heading: str
    summary: Optional[str]
    items: tuple
    left_out: int

    @property
    def count(self):
        """How many hosts or VMs the code is about: the items listed and those the API left out."""
        return len(self.items) + self.left_out

    @property
    def shown(self):
        return self.items[:SHOWN]

    @property
    def hidden(self):
        """The items behind "show all" (the API listed them; the page holds them folded)."""
        return self.items[SHOWN:]

    @property
    def restores_hosts(self):
        """Whether each item's host gets a Return to service button."""
        return self.code in RESTORE_CODES

    @property
    def edits_aggregate(self):
        """Whether the line gets the aggregate's Edit configuration button."""
        return self.code in EDIT_AGGREGATE_CODES


def _about_aggregate(entry):
    return entry.get('host') is None and entry.get('vm_id') is None


def _group(code, entries, left_out):
    about_aggregate = [entry for entry in entries if _about_aggregate(entry)]
    summary = about_aggregate[0]['message'] if about_aggregate else None
    items = tuple(entry for entry in entries if not _about_aggregate(entry))
    return Group(code, labels.reason_heading(code), summary, items, left_out)


def groups_of(record):
    """The record's reasons as ``Group``s in the API's order; None for a record of API 1.0 (text only)."""
    if 'reasons' not in record:
        return None
    return [_group(code, entries, left_out)
            for code, entries, left_out in client_reasons.groups(record['reasons'], record.get('more_reasons'))]


def summary_line(record):
    """The record's reasons in one line for a table cell, headings in the user's language.

    A single reason reads ``heading: its sentence``; several codes ``heading (count); ...``
    (the count when more than one host or VM); a 1.0 record its text; '' for none.
    """
    grouped = groups_of(record)
    if grouped is None:
        return record.get('reason') or ''
    if len(grouped) == 1 and grouped[0].count <= 1:
        group = grouped[0]
        sentence = group.items[0]['message'] if group.items else group.summary
        return '%s: %s' % (group.heading, sentence) if sentence else group.heading
    return '; '.join('%s (%d)' % (group.heading, group.count) if group.count > 1 else group.heading
                     for group in grouped)
