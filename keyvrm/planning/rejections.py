"""Which check rejected each candidate host of an LB source that found no target, kept cheaply.

LB's target scan counts whole tails of its sorted target lists, and the hosts left out of
them, without looking at them one by one (``keyvrm.planning.lb``). So a failed attempt is
kept by reference: the target lists and the left-out hosts are frozen once per layout (they
change only when a move is applied), and an attempt keeps its VM, the hosts it examined and
the bounds of its tails in those frozen lists. Names are read only for a source that ends
with no move, and only as far as the cap asks (``read``): the first ``limit`` (host, check)
items, by host then check, with how many of the source's VMs each rejected, and how many
items there are in all.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Optional


class FrozenList:
    """One sorted target list ((value, host), ...) as it was when an attempt scanned it."""

    __slots__ = ("_entries", "_names", "_positions", "_order")

    def __init__(self, entries):
        self._entries = entries[:]
        self._names = self._positions = self._order = None

    def names(self) -> list:
        if self._names is None:
            self._names = [host for _, host in self._entries]
        return self._names

    def position(self, host) -> Optional[int]:
        if self._positions is None:
            self._positions = {host: i for i, host in enumerate(self.names())}
        return self._positions.get(host)

    def first(self, start, end, limit) -> list:
        """The first ``limit`` hosts of positions [start, end) in name order."""
        names = self.names()
        if end - start <= 4 * limit:
            return sorted(names[start:end])[:limit]
        if self._order is None:
            self._order = sorted(range(len(names)), key=names.__getitem__)
        found = []
        for i in self._order:
            if start <= i < end:
                found.append(names[i])
                if len(found) == limit:
                    break
        return found


class Layout:
    """The target lists and the left-out hosts (host -> the limit it is above) between two moves."""

    def __init__(self, closed: dict):
        self.closed = dict(closed)
        self._lists = {}
        self._by_check = None

    def frozen(self, key, entries) -> FrozenList:
        """``entries`` (the list ``key`` names) as this layout has it."""
        found = self._lists.get(key)
        if found is None:
            found = self._lists[key] = FrozenList(entries)
        return found

    def closed_by_check(self, skip) -> dict:
        """Per limit, the left-out hosts above it (sorted by name), those in ``skip`` excepted."""
        if self._by_check is None:
            self._by_check = {}
            for host, why in self.closed.items():
                if host not in skip:
                    self._by_check.setdefault(why, []).append(host)
            for hosts in self._by_check.values():
                hosts.sort()
        return self._by_check


class Attempt:
    """One VM of a source that found no target: the hosts examined and the tails counted."""

    __slots__ = ("vm_id", "examined", "tails", "layout")

    def __init__(self, vm_id, examined, tails, layout):
        self.vm_id = vm_id
        self.examined = dict(examined)  # host -> check (each host is examined once per attempt)
        self.tails = tails  # ((FrozenList, start, end, check), ...)
        self.layout = layout


def _collections(attempts, ineligible, skip) -> dict:
    """Per check, the distinct host collections of ``attempts`` (lists, or frozen tails)."""
    per_check = {}
    seen = set()
    examined = {}
    spans = {}  # (check, id of a FrozenList) -> (the list, [(start, end)])

    def add(check, key, value):
        if (check, key) not in seen:
            seen.add((check, key))
            per_check.setdefault(check, []).append(value)

    for check, hosts in ineligible.items():
        if hosts:
            add(check, "ineligible", ("list", sorted(hosts)))
    for attempt in attempts:
        for host, check in attempt.examined.items():
            examined.setdefault(check, set()).add(host)
        for check, hosts in attempt.layout.closed_by_check(skip).items():
            add(check, id(attempt.layout), ("list", hosts))
        for frozen, start, end, check in attempt.tails:
            if start < end:
                spans.setdefault((check, id(frozen)), (frozen, []))[1].append((start, end))
    for check, hosts in examined.items():
        add(check, "examined", ("list", sorted(hosts)))
    for (check, key), (frozen, bounds) in spans.items():
        for start, end in _merged(bounds):
            add(check, (key, start), ("tail", frozen, start, end))
    return per_check


def _merged(bounds) -> list:
    """The union of [start, end) intervals as disjoint intervals, in order."""
    merged = []
    for start, end in sorted(bounds):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _count(items) -> int:
    """How many distinct hosts ``items`` (of one check) hold."""
    if len(items) == 1 or all(item[0] == "tail" and item[1] is items[0][1] for item in items):
        return sum(len(_hosts_of(item)) if item[0] == "list" else item[3] - item[2] for item in items)
    return len(set().union(*map(_hosts_of, items)))


def _hosts_of(item) -> list:
    if item[0] == "list":
        return item[1]
    _, frozen, start, end = item
    return frozen.names()[start:end]


def _first(item, limit) -> list:
    if item[0] == "list":
        return item[1][:limit]
    _, frozen, start, end = item
    return frozen.first(start, end, limit)


def _tagged(check, hosts):
    """(host, check) for each distinct host of the sorted ``hosts``."""
    for host, _ in itertools.groupby(hosts):
        yield host, check


def read(attempts, ineligible: dict, skip, limit: Optional[int]) -> tuple:
    """((host, check, VMs), ...) of the first ``limit`` items by host then check, and the rest's count.

    ``ineligible`` maps a check to the hosts it rejects for every VM (busy, offline);
    ``skip`` are hosts never counted as left out (the sources). ``limit`` None: every item.
    """
    ineligible_of = {host: check for check, hosts in ineligible.items() for host in hosts}
    per_check = _collections(attempts, ineligible, skip)
    total = 0
    streams = []
    for check, items in per_check.items():
        total += _count(items)
        if limit is None:
            firsts = [sorted(_hosts_of(item)) for item in items]
        else:
            firsts = [_first(item, limit) for item in items]
        streams.append(_tagged(check, heapq.merge(*firsts)))
    pairs = list(itertools.islice(heapq.merge(*streams), limit))
    vms_of = _VMCounter(attempts, ineligible_of, skip)
    found = tuple((host, check, len(vms_of(host, check))) for host, check in pairs)
    return found, total - len(found)


class _VMCounter:
    """Which attempts' VMs a check rejected on a host, from the attempts grouped once."""

    def __init__(self, attempts, ineligible_of, skip):
        self.ineligible_of = ineligible_of
        self.skip = skip
        self.all_vms = {a.vm_id for a in attempts}
        self.examined = {}
        self.layouts = {}  # id -> (Layout, VMs of the attempts made in it)
        self.tails = {}  # check -> {id of a FrozenList: (the list, [(start, end, VM)])}
        for a in attempts:
            for host, check in a.examined.items():
                self.examined.setdefault((host, check), set()).add(a.vm_id)
            self.layouts.setdefault(id(a.layout), (a.layout, set()))[1].add(a.vm_id)
            for frozen, start, end, check in a.tails:
                if start < end:
                    self.tails.setdefault(check, {}).setdefault(id(frozen), (frozen, []))[1].append(
                        (start, end, a.vm_id))

    def __call__(self, host, check) -> set:
        vms = set(self.examined.get((host, check), ()))
        if self.ineligible_of.get(host) == check:
            return self.all_vms
        if host not in self.skip:
            for layout, layout_vms in self.layouts.values():
                if layout.closed.get(host) == check:
                    vms |= layout_vms
        for frozen, spans in self.tails.get(check, {}).values():
            i = frozen.position(host)
            if i is not None:
                vms.update(vm for start, end, vm in spans if start <= i < end)
        return vms
