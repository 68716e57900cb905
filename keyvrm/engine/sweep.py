"""The sweep: work left open that no flow carries on any more is resumed or settled.

Every flow is persisted before it runs and a step waits out a database outage, so work
is normally finished by its flow, or by the same flow resumed at the next start. What a
flow lost anyway (one TaskFlow reverted and forgot on a database error, or one an older
engine ran) would stay open forever: a cycle ``running``, an event ``executing``, a
recommendation ``running``, a host ``evacuating``, a VM locked. The leading engine
sweeps when it starts leading and then every ``SWEEP_INTERVAL_S``:

* a recommendation ``created`` or ``running`` (an ExecutorFlow or HA's step carries
  those) whose event no live flow carries is resumed by an ExecutorFlow (evacuations,
  live and cold migrations; the run carries on from its journal and never starts a second
  migration); a stop, which only HA's host step follows, is cancelled;
* its event gets the reason ``engine_lost_database`` and is completed (at least
  ``warning``) once its recommendations are final; so is an event no flow carries that
  has no open recommendation and does not wait for an operator;
* a cycle no live MasterFlow carries is ``failed`` with that reason;
* a host an abandoned HA run was fencing or evacuating, with nothing left running from
  it, goes back to ``ok``: HA condemns, fences and evacuates it again at the next cycle
  if it is still down (a fence is idempotent; no VM is evacuated twice, those that left
  are no longer on it);
* a VM lock held for a recommendation that is final (or gone) is released.

"Live" means named by a persisted, unfinished flow (any engine's); only work older than
``GRACE_S`` is looked at, so a step that has just written its row but not yet recorded
its result in TaskFlow is never taken for lost.

Work that waits for an operator is never the sweep's, however old: no flow carries it,
by design. An event whose open recommendations all wait in ``manual_action`` belongs to
the operator and to the manual timeout (MasterFlow's ``cancel_expired_manual``), and so
does a ``manual_action`` event whose recommendations have all ended (that step settles
it at the next cycle).
"""

from __future__ import annotations

import dataclasses
import datetime

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.engine import persistence as engine_persistence
from keyvrm import exception
from keyvrm.executor import runner
from keyvrm.flows import events
from keyvrm.model import states
from keyvrm.planning import reasons

LOG = logging.getLogger(__name__)

GRACE_S = 60.0
SWEEP_INTERVAL_S = 600.0
RESUMABLE_ACTIONS = ("evacuate", "live_migrate", "cold_migrate")
OPEN_RECOMMENDATION = ("created", "running", "manual_action")


@dataclasses.dataclass(frozen=True)
class LiveWork:
    """What the persisted, unfinished flows carry on: cycles, (cycle, aggregate) runs, recommendations."""

    cycle_ids: frozenset
    aggregate_runs: frozenset
    recommendation_ids: frozenset


def live_work(persistence: engine_persistence.Persistence) -> LiveWork:
    """The work named by every unfinished flow in the database (local and jobboard ones)."""
    cycles, runs, recs = set(), set(), set()
    for record in persistence.unfinished(engine_persistence.LOCAL) + persistence.unfinished(engine_persistence.JOB):
        store = record.store
        if "cycle_id" in store:
            cycles.add(store["cycle_id"])
            if "aggregate" in store:
                runs.add((store["cycle_id"], store["aggregate"]))
        if "recommendation_id" in store:
            recs.add(store["recommendation_id"])
        for atom in record.flow_detail:  # a MasterFlow's cycle is its first step's result
            if atom.name == "start_cycle" and isinstance(atom.results, int):
                cycles.add(atom.results)
    return LiveWork(frozenset(cycles), frozenset(runs), frozenset(recs))


@dataclasses.dataclass
class Swept:
    """What one sweep resumed or settled (ids and names)."""

    recommendations_resumed: list = dataclasses.field(default_factory=list)
    recommendations_cancelled: list = dataclasses.field(default_factory=list)
    events_completed: list = dataclasses.field(default_factory=list)
    cycles_failed: list = dataclasses.field(default_factory=list)
    hosts_released: list = dataclasses.field(default_factory=list)
    vms_unlocked: list = dataclasses.field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(getattr(self, f.name)) for f in dataclasses.fields(self))

    def describe(self) -> str:
        """One line: what was done to which records."""
        return "; ".join("%s %s" % (f.name.replace("_", " "), ", ".join(map(str, getattr(self, f.name))))
                         for f in dataclasses.fields(self) if getattr(self, f.name)) or "nothing lost"


def sweep(resources, persistence, dispatcher, *, grace_s: float = GRACE_S) -> Swept:
    """Resume or settle the work older than ``grace_s`` that no unfinished flow names."""
    db = resources.db
    before = db.now() - datetime.timedelta(seconds=grace_s)
    live = live_work(persistence)
    work = db_api.list_open_work(db, before)
    swept = Swept()
    carried_events = set()
    for event in work["events"]:
        recs = db_api.list_recommendations(db, event_id=event["id"])
        if _carried(event, live, recs):
            carried_events.add(event["id"])
        elif not waits_for_operator(event, recs):
            _settle_event(db, dispatcher, event, recs, swept)
    for cycle_id in work["cycles"]:
        if cycle_id not in live.cycle_ids and db_api.fail_lost_cycle(
                db, cycle_id, reasons.ENGINE_LOST_DATABASE, reasons.engine_lost_database(
                    "no MasterFlow carries this cycle on").message):
            swept.cycles_failed.append(cycle_id)
    for host in work["hosts"]:
        if host["event_id"] not in carried_events and not _evacuations_open(db, host):
            why = reasons.engine_lost_database("the HA run of event %s was abandoned; HA takes the host "
                                               "again at the next cycle" % host["event_id"]).message
            if db_api.release_lost_hypervisor(db, host["host"], host["event_id"], why):
                swept.hosts_released.append(host["host"])
    _unlock_finished(db, before, swept)
    return swept


def _carried(event, live, recs) -> bool:
    """Whether a live flow carries ``event`` on: its cycle, its aggregate's run or one of its recommendations."""
    if event["cycle_id"] in live.cycle_ids or (event["cycle_id"], event["aggregate_name"]) in live.aggregate_runs:
        return True
    return any(rec["id"] in live.recommendation_ids for rec in recs)


def waits_for_operator(event, recs) -> bool:
    """Whether ``event``'s open work is the operator's, not a flow's: then nothing of it is lost.

    True when every open recommendation waits in ``manual_action`` (the operator runs or
    cancels it, else the manual timeout cancels it), or when none is open and the event
    itself waits in ``manual_action`` (the cycle's manual step settles it). A
    ``created`` or ``running`` recommendation is a flow's work, and so is an event
    waiting in any other status.
    """
    open_statuses = {rec["status"] for rec in recs if rec["status"] in OPEN_RECOMMENDATION}
    if open_statuses:
        return open_statuses == {"manual_action"}
    return event["status"] == "manual_action"


def _settle_event(db, dispatcher, event, recs, swept):
    lost = reasons.engine_lost_database("no flow carries event %s on" % event["id"])
    still_open = False
    for rec in recs:
        if rec["status"] not in ("created", "running"):
            still_open = still_open or rec["status"] == "manual_action"
        elif rec["action"] in RESUMABLE_ACTIONS:
            dispatcher.dispatch("executor", {"recommendation_id": rec["id"]})
            swept.recommendations_resumed.append(rec["id"])
            still_open = True
        elif _cancel(db, rec["id"], lost.message):
            swept.recommendations_cancelled.append(rec["id"])
    events.add_reasons(db, event["id"], [lost])
    if still_open:
        return  # the ExecutorFlow's last step (or the manual timeout) settles it
    if events.settle(db, event["id"], at_least="warning") is not None:
        swept.events_completed.append(event["id"])


def _cancel(db, rec_id, why) -> bool:
    try:
        db_api.set_recommendation_status(db, rec_id, "cancelled", reason=why)
        return True
    except exception.Conflict:
        return False


def _evacuations_open(db, host) -> bool:
    """Whether an evacuation from the host is still open (the host must stay fenced for it)."""
    return any(rec["source_host"] == host["host"] and rec["status"] in OPEN_RECOMMENDATION
               for rec in db_api.list_recommendations(db, event_id=host["event_id"]))


def _unlock_finished(db, before, swept):
    for vm_id, owner in db_api.list_locked_vms(db, before):
        rec_id = runner.recommendation_of_owner(owner)
        if rec_id is None:
            continue
        try:
            status = db_api.get_recommendation(db, rec_id)["status"]
        except exception.NotFound:
            status = None
        if status in (None,) + states.RECOMMENDATION_FINAL and db_api.end_vm_transition(db, vm_id, owner=owner):
            swept.vms_unlocked.append(vm_id)
