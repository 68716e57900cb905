"""Events as the flows keep them: opened once per run, reasons recorded as data, settled in one step.

A flow task may run again after a crash, so opening an event first looks for the one
this cycle already opened for the aggregate and kind, and recording a reason the event
holds changes nothing. The event's ``reasons`` are a ``keyvrm.model.reason_list.ReasonList``
(entries keyed by code, host and VM, at most ``PER_CODE`` per code and the rest counted),
ordered by ``keyvrm.planning.reasons.rank``; its first code is the event's
``reason_code``: an error first, then what the run found, then how its recommendations
ended (``recommendations_final``, once settled), and only then a note on how it planned.

A reason that stands for "no target" (it carries ``rejected_hosts``: per VM in HA, per
overloaded source in LB) is also kept as a structured ``no_target`` entry (``no_target_entry``)
naming the check that rejected each candidate host, at most ``max_rejected_hosts`` of them.
The reasons, the entries and a change of status are written in one row-locked transaction;
so is ``settle``, the one place an event with recommendations is completed.
"""

from __future__ import annotations

from typing import Iterable, Optional

from keyvrm.db import api as db_api
from keyvrm.executor import events as executor_events
from keyvrm.model import reason_list
from keyvrm.model import states
from keyvrm.planning import reasons as reason_codes

PER_CODE = reason_list.DEFAULT_PER_CODE
DEFAULT_MAX_REJECTED_HOSTS = 100  # [engine] max_rejected_hosts
_STATE_RANK = {states.EventState.HEALTHY: 0, states.EventState.WARNING: 1, states.EventState.ERROR: 2}


def open_event(db, cycle_id, aggregate, kind, marker, snapshot_id) -> str:
    """The id of this cycle's ``kind`` event of ``aggregate``, created (``generating``) if new."""
    for event in db_api.list_events(db, aggregate_name=aggregate, kind=kind, cycle_id=cycle_id):
        return event["id"]
    event_id = db_api.create_event(db, aggregate, kind, marker, cycle_id=cycle_id, snapshot_id=snapshot_id)
    db_api.set_event_status(db, event_id, states.EventStatus.GENERATING)
    return event_id


def with_reasons(stored: Optional[dict], found: Iterable) -> reason_list.ReasonList:
    """The stored reasons (``ReasonList.to_json``, or None) with ``found`` added, ranked."""
    listed = reason_list.ReasonList.from_json(stored).added((r.entry() for r in found), PER_CODE)
    return listed.ranked(reason_codes.rank)


def describe(found: Iterable) -> tuple:
    """(most telling code, stored reasons) of ``found`` reasons, as a cycle outcome records them."""
    listed = with_reasons(None, found)
    return listed.first_code or "nothing_to_do", listed.to_json()


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
                max_rejected_hosts: int = DEFAULT_MAX_REJECTED_HOSTS, state: Optional[str] = None) -> None:
    """Record ``found`` reasons on the event (once each), optionally moving it to ``status`` (and ``state``).

    Their "no target" entries go in with them, in the same transaction.
    """
    found = list(found)

    def merged(stored):
        if not found:
            return None
        listed = with_reasons(stored, found)
        return listed.first_code, listed.to_json()

    no_target = [no_target_entry(reason, max_rejected_hosts) for reason in found
                 if reason.rejected_hosts is not None]
    db_api.update_event_reasons(db, event_id, merged, no_target=no_target, status=status, state=state)


def complete_event(db, event_id, state: str, found: Iterable = (),
                   max_rejected_hosts: int = DEFAULT_MAX_REJECTED_HOSTS) -> None:
    """Complete an event that created nothing, in ``state``, with its reasons (one transaction)."""
    add_reasons(db, event_id, found, status=states.EventStatus.COMPLETED, max_rejected_hosts=max_rejected_hosts,
                state=state)


def settle(db, event_id, at_least: Optional[str] = None) -> Optional[str]:
    """Complete the event once its recommendations are final, keeping its run's reasons; its state.

    The state is the recommendations' (``executor.events.state_of``), raised to
    ``at_least`` and to ``error`` when the run recorded an error reason (e.g. a host it
    could not fence). How the recommendations ended is recorded as the
    ``recommendations_final`` reason, with their count per status. Status, state,
    reasons and code are written in one row-locked transaction. Returns the state, or
    None while a recommendation is open; an event already completed keeps its state.
    """
    def decide(stored, statuses):
        state = executor_events.state_of(statuses)
        if state is None:
            return None
        counts = executor_events.final_counts(statuses)
        listed = with_reasons(stored, [reason_codes.recommendations_final(counts)])
        floor = states.EventState.ERROR if listed.first_code in reason_codes.ERROR_CODES else at_least
        if floor is not None and _STATE_RANK[floor] > _STATE_RANK[state]:
            state = floor
        return state, listed.first_code, listed.to_json()

    return db_api.settle_event(db, event_id, decide)
