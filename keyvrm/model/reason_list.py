"""Why a run did what it did, as data: entries {code, message, host, vm_id, details}, a bounded number per code.

An event and a cycle outcome keep their reasons as a ``ReasonList``, stored as JSON
(``to_json``). An entry is keyed by (code, host, vm_id): adding an entry whose key the
list holds replaces that entry where it stands, so a task that runs again, or a second
HA round, never records a reason twice. Each code keeps at most ``per_code`` entries, the
first that came; of the others only the keys are kept, so the count of the rest is exact
and adding one of them again changes nothing. An entry is never cut: the bound is a
number of entries, not of characters.

``ranked`` orders the list by a rank of codes (the planners define it:
``keyvrm.planning.reasons.rank``), each code's entries together; ``first_code`` is then
the most telling code. ``text`` renders the list as the single line API clients older
than microversion 1.1 read: ``[code] message; [code] message; [code] (+N more)``.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Callable, Iterable, Optional

DEFAULT_PER_CODE = 10


@dataclasses.dataclass(frozen=True)
class Entry:
    """One reason: a stable ``code``, a sentence, the host and VM it is about, and its figures.

    ``details`` is a tuple of (name, value) pairs, values JSON scalars: numbers such as a
    syn_score, a ceiling or how many hosts each check rejected.
    """

    code: str
    message: str
    host: Optional[str] = None
    vm_id: Optional[str] = None
    details: tuple = ()

    @property
    def key(self) -> tuple:
        """What makes two entries the same reason: (code, host, vm_id)."""
        return self.code, self.host, self.vm_id

    def to_json(self) -> dict:
        """The entry as the API and the database hold it."""
        return {"code": self.code, "message": self.message, "host": self.host, "vm_id": self.vm_id,
                "details": dict(self.details)}

    @classmethod
    def from_json(cls, value: dict) -> "Entry":
        """The entry ``to_json`` wrote."""
        return cls(value["code"], value["message"], value.get("host"), value.get("vm_id"),
                   tuple((value.get("details") or {}).items()))


@dataclasses.dataclass(frozen=True)
class ReasonList:
    """The reasons of one run: ``entries`` in order, and the keys of those the bound left out."""

    entries: tuple = ()
    omitted: tuple = ()

    def added(self, new: Iterable[Entry], per_code: int = DEFAULT_PER_CODE) -> "ReasonList":
        """This list with ``new`` entries added: once each by key, at most ``per_code`` kept per code."""
        if per_code < 1:
            raise ValueError("per_code: at least one entry of each code is kept, got %r" % (per_code,))
        entries, omitted = list(self.entries), list(self.omitted)
        at = {entry.key: i for i, entry in enumerate(entries)}
        left_out = set(omitted)
        kept = collections.Counter(entry.code for entry in entries)
        for entry in new:
            if entry.key in at:
                entries[at[entry.key]] = entry
            elif entry.key in left_out:
                continue
            elif kept[entry.code] < per_code:
                at[entry.key] = len(entries)
                entries.append(entry)
                kept[entry.code] += 1
            else:
                omitted.append(entry.key)
                left_out.add(entry.key)
        return ReasonList(tuple(entries), tuple(omitted))

    def ranked(self, rank: Callable[[str], int]) -> "ReasonList":
        """This list ordered by ``rank`` of the codes (lowest first), each code's entries together.

        Codes of equal rank keep the order in which they first came; so do the entries of a code.
        """
        first = {}
        for i, entry in enumerate(self.entries):
            first.setdefault(entry.code, i)
        order = sorted(range(len(self.entries)),
                       key=lambda i: (rank(self.entries[i].code), first[self.entries[i].code], i))
        return ReasonList(tuple(self.entries[i] for i in order), self.omitted)

    @property
    def first_code(self) -> Optional[str]:
        """The code of the first entry (of a ranked list: the most telling one), None when empty."""
        return self.entries[0].code if self.entries else None

    def more(self) -> dict:
        """How many entries of each code the bound left out: {code: count}, only codes that lost some."""
        return dict(collections.Counter(code for code, _, _ in self.omitted))

    def text(self) -> Optional[str]:
        """The list as one line, ``[code] message; ...``, each code's left-out count after its entries.

        None when the list is empty.
        """
        more = self.more()
        last = {entry.code: i for i, entry in enumerate(self.entries)}
        parts = []
        for i, entry in enumerate(self.entries):
            parts.append("[%s] %s" % (entry.code, entry.message))
            if last[entry.code] == i and entry.code in more:
                parts.append("[%s] (+%d more)" % (entry.code, more.pop(entry.code)))
        parts += ["[%s] (+%d more)" % item for item in more.items()]
        return "; ".join(parts) or None

    def to_json(self) -> dict:
        """The list as the database stores it: ``{"entries": [...], "omitted": [[code, host, vm_id], ...]}``."""
        return {"entries": [entry.to_json() for entry in self.entries],
                "omitted": [list(key) for key in self.omitted]}

    @classmethod
    def from_json(cls, value: Optional[dict]) -> "ReasonList":
        """The list ``to_json`` wrote (None: an empty list)."""
        if not value:
            return cls()
        return cls(tuple(Entry.from_json(e) for e in value.get("entries", ())),
                   tuple(tuple(key) for key in value.get("omitted", ())))
