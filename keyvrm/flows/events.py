"""Events as the flows keep them: opened once per run, reasons accumulated, closed with a state.

A flow task may run again after a crash, so opening an event first looks for the one
this cycle already opened for the aggregate and kind, and a reason already recorded is
not added twice. The event's ``reason`` is the readable list of every reason of its run
(``[code] message; ...``); ``reason_code`` is the most telling one: an error code first,
then what the run found, and only then a note on how it planned (``INFO_CODES``). A settled
event whose reasons are only notes says ``recommendations_final``: its code agrees with its
outcome, never "no_filters" for a run whose recommendations all ended.

A reason that stands for "no target" (it carries ``rejected_hosts``: per VM in HA, per
overloaded source in LB) is also kept as a structured ``no_target`` entry (``no_target_entry``)
naming the check that rejected each candidate host, at most ``max_rejected_hosts`` of them.
The text and the entries are written in one row-locked transaction.
"""

from __future__ import annotations

from typing import Iterable, Optional

from keyvrm.db import api as db_api
from keyvrm.executor import events as executor_events
from keyvrm.planning import reasons as reason_codes

SETTLED_CODE = "recommendations_final"
MAX_REASON_CHARS = 8000
DEFAULT_MAX_REJECTED_HOSTS = 100  # [engine] max_rejected_hosts
_STATE_RANK = {"healthy": 0, "warning": 1, "error": 2}
# Notes on how a run planned, not what it found: never an event's code while another applies.
INFO_CODES = frozenset({reason_codes.NO_FILTERS, reason_codes.FILTER_INPUT_UNKNOWN})


def open_event(db, cycle_id, aggregate, kind, marker, snapshot_id) -> str:
    """The id of this cycle's ``kind`` event of ``aggregate``, created (``generating``) if new."""
    for event in db_api.list_events(db, aggregate_name=aggregate, kind=kind, cycle_id=cycle_id):
        return event["id"]
    event_id = db_api.create_event(db, aggregate, kind, marker, cycle_id=cycle_id, snapshot_id=snapshot_id)
    db_api.set_event_status(db, event_id, "generating")
    return event_id


def _entries(text: Optional[str]) -> list:
    return [e for e in (text or "").split("; ") if e]


def _code_of(entry: str) -> Optional[str]:
    if entry.startswith("[") and "]" in entry:
        return entry[1:entry.index("]")]
    return None


def _best_code(entries, fallback: Optional[str] = None) -> Optional[str]:
    """An error code, else the first finding, else ``fallback``, else the first note."""
    codes = [c for c in (_code_of(e) for e in entries) if c and c != SETTLED_CODE]
    for code in codes:
        if code in reason_codes.ERROR_CODES:
            return code
    findings = [c for c in codes if c not in INFO_CODES]
    if findings:
        return findings[0]
    return fallback or (codes[0] if codes else None)


def reason_entry(reason) -> str:
    """One reason as the event stores it: ``[code] message``."""
    return "[%s] %s" % (reason.code, reason.message)


def describe(found: Iterable) -> tuple:
    """(most telling code, readable text) of ``found`` reasons, as an event would store them."""
    entries = []
    for reason in found:
        entry = reason_entry(reason)
        if entry not in entries:
            entries.append(entry)
    return _best_code(entries) or "nothing_to_do", "; ".join(entries)[:MAX_REASON_CHARS]


def no_target_entry(reason, max_rejected_hosts: int = DEFAULT_MAX_REJECTED_HOSTS) -> dict:
    """The stored (and shown) form of a "no target" reason.

    Its first ``max_rejected_hosts`` (host, check) items, and how many were left out
    (``more_hosts``).
    """
    listed = reason.rejected_hosts or ()
    kept = listed[:max(0, max_rejected_hosts)]
    return {"vm_id": reason.vm_id, "source_host": reason.host, "code": reason.code,
            "message": reason.message,
            "rejected_hosts": [{"host": host, "check": check, "vms": vms} for host, check, vms in kept],
            "more_hosts": reason.more_hosts + len(listed) - len(kept)}


def add_reasons(db, event_id, found: Iterable, status: Optional[str] = None,
                max_rejected_hosts: int = DEFAULT_MAX_REJECTED_HOSTS) -> None:
    """Record ``found`` reasons on the event (once each), optionally moving it to ``status``.

    Their "no target" entries go in with the text, in the same transaction.
    """
    found = list(found)

    def merged(stored):
        entries = _entries(stored)
        for reason in found:
            entry = reason_entry(reason)
            if entry not in entries:
                entries.append(entry)
        return _best_code(entries), "; ".join(entries)[:MAX_REASON_CHARS] or None

    no_target = [no_target_entry(reason, max_rejected_hosts) for reason in found
                 if reason.rejected_hosts is not None]
    db_api.update_event_reasons(db, event_id, merged, no_target=no_target, status=status)


def complete_event(db, event_id, state: str, found: Iterable = (),
                   max_rejected_hosts: int = DEFAULT_MAX_REJECTED_HOSTS) -> None:
    """Complete an event that created nothing, in ``state``, with its reasons."""
    add_reasons(db, event_id, found, max_rejected_hosts=max_rejected_hosts)
    event = db_api.get_event_summary(db, event_id)
    db_api.set_event_status(db, event_id, "completed", state=state, reason_code=event["reason_code"],
                            reason=event["reason"])


def _counts_text(reason: Optional[str]) -> str:
    """The executor's count of final recommendations ("2 succeeded, 1 failed") in ``reason``.

    Two settles of one event may race (the run's own and the cycle's sweep): the one that
    reads the reason after the other completed the event finds it already prefixed.
    """
    prefix = "[%s] " % SETTLED_CODE
    for entry in _entries(reason):
        while entry.startswith(prefix):
            entry = entry[len(prefix):]
        if _code_of(entry) is None:
            return entry
    return "nothing to do"


def settle(db, event_id, at_least: Optional[str] = None) -> Optional[str]:
    """Complete the event once its recommendations are final, keeping its run's reasons.

    The state is the executor's verdict on the recommendations, raised to ``at_least``
    and to ``error`` when the run recorded an error reason (e.g. a host it could not
    fence). Returns the state, or None while a recommendation is open.
    """
    before = db_api.get_event_summary(db, event_id)
    if before["status"] == "completed":
        return before["state"]
    state = executor_events.settle_event(db, event_id)
    if state is None:
        return None
    entries = [e for e in _entries(before["reason"]) if _code_of(e) != SETTLED_CODE]
    settled = db_api.get_event_summary(db, event_id)
    counts = _counts_text(settled["reason"])
    code = _best_code(entries, fallback=SETTLED_CODE)
    if code in reason_codes.ERROR_CODES:
        at_least = "error"
    if at_least is not None and _STATE_RANK[at_least] > _STATE_RANK[state]:
        state = at_least
    text = "; ".join(["[%s] %s" % (SETTLED_CODE, counts)] + entries)[:MAX_REASON_CHARS]
    db_api.set_event_status(db, event_id, "completed", state=state, reason_code=code,
                            reason=text)
    return state
