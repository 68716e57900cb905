"""Failure domains (racks) of an HA aggregate's hosts, named by Nova host aggregate metadata.

A host's domain is, in this order:

1. the value of ``ha_failure_domain`` on a Nova aggregate the host is in (operators
   commonly keep one aggregate per rack); of several aggregates carrying it, the one
   first by name;
2. else, when the HA aggregate itself carries ``ha_failure_domain_pattern`` (a Python
   regular expression), what it finds in the host name (``re.search``): its first
   group, or the whole match when it has no group (``^(rack\\d+)-`` names ``rack12`` for
   ``rack12-cmp3``);
3. else none: the host is in no domain.

An empty value (or an empty match) is no label. A pattern that is not a regular
expression labels nothing, not even the hosts ``ha_failure_domain`` labels: the answer
carries the error instead (the key, the aggregate, what ``re`` said), so a typo never
passes for "no racks at risk". The keys follow the VM keys' shape (``ha_no_evacuate``):
snake case, the feature first.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

DOMAIN_KEY = "ha_failure_domain"
PATTERN_KEY = "ha_failure_domain_pattern"


@dataclasses.dataclass(frozen=True, slots=True)
class DomainLabels:
    """The domains of some hosts: ``((domain, (host, ...)), ...)`` by domain name, or why there are none."""

    domains: tuple = ()
    error: Optional[str] = None


def _label(text) -> Optional[str]:
    text = (text or "").strip() if isinstance(text, str) else None
    return text or None


def _named_by_metadata(index, host) -> Optional[str]:
    """``ha_failure_domain`` of the first (by name) of ``host``'s aggregates carrying it."""
    hypervisor = index.hypervisors.get(host)
    for name in sorted(hypervisor.aggregates if hypervisor is not None else ()):
        aggregate = index.aggregates.get(name)
        if aggregate is not None and DOMAIN_KEY in aggregate.metadata:
            found = _label(aggregate.metadata[DOMAIN_KEY])
            if found:
                return found
    return None


def _named_by_pattern(pattern, host) -> Optional[str]:
    found = pattern.search(host)
    if found is None:
        return None
    return _label(found.group(1) if pattern.groups else found.group(0))


def domains_of(index, aggregate: str, hosts) -> DomainLabels:
    """The failure domains of ``hosts`` (names, members of HA ``aggregate``) from ``index``'s metadata."""
    record = index.aggregates.get(aggregate)
    text = record.metadata.get(PATTERN_KEY) if record is not None else None
    pattern = None
    if _label(text):
        try:
            pattern = re.compile(text)
        except re.error as error:
            return DomainLabels(error="%s %r on aggregate %s is not a regular expression: %s; no failure"
                                      " domain is analysed" % (PATTERN_KEY, text, aggregate, error))
    members = {}
    for host in hosts:
        name = _named_by_metadata(index, host)
        if name is None and pattern is not None:
            name = _named_by_pattern(pattern, host)
        if name is not None:
            members.setdefault(name, []).append(host)
    return DomainLabels(tuple((name, tuple(members[name])) for name in sorted(members)))
