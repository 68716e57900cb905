"""The failover prediction check (issue 28): the VMs predicted without a target are the VMs HA left behind.

While a scenario runs, the check keeps each finished cycle's snapshot. When hosts die
(``host_dies``), it takes the newest snapshot harvested before the death and predicts,
per HA aggregate, the VMs HA would leave without a target: for one host of the
aggregate, that host's entry of ``planning.failover.analyse_failover`` (the analysis
the cycle ran); for several at once, ``planning.failover.left_behind`` of exactly those
hosts. At the end the prediction is compared with what happened, for hosts KeyVRM
handled (fenced, then maintenance or error): the evacuable VMs still on those hosts in
the region must be exactly the predicted ones (VMs HA did plan a target for and Nova
did not move are execution failures, counted apart), and where an HA event lists a VM
without a target, with the same check code. Deaths before the first cycle, hosts HA never
handled (guard, no fencer, undeclared storage ...) or that were powered on again are
reported as not compared, with why.

Each comparison is a ``Verdict``; every run carries its verdicts (``check.Result.predictions``)
and a mismatch is a problem of the run in every scenario. Scenario key ``expect:
{failover_prediction_kept: true}`` also requires that at least one death was compared.
"""

from __future__ import annotations

import dataclasses

from keyvrm.db import api as db_api
from keyvrm.executor import runner
from keyvrm.flows import context
from keyvrm.model import reason_list
from keyvrm.planning import failover
from keyvrm.planning import ha

HANDLED_STATES = ("maintenance", "error")


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One prediction compared: ``kept`` True/False, or None when it could not be compared (``why``)."""

    aggregate: str
    hosts: tuple
    at_s: float
    kept: object  # True, False or None
    why: str
    predicted: tuple = ()  # VM ids predicted without a target
    left_behind: tuple = ()  # evacuable VM ids left on the hosts at the end

    def describe(self) -> str:
        what = {True: "kept", False: "MISSED", None: "not compared"}[self.kept]
        return "failover prediction %s for %s on %s: %s" % (what, ", ".join(self.hosts), self.aggregate, self.why)


@dataclasses.dataclass
class _Pending:
    aggregate: str
    hosts: tuple
    at_s: float
    evacuable: frozenset = frozenset()
    predicted: dict = dataclasses.field(default_factory=dict)  # vm id -> check code
    why_not: str = ""


class PredictionWatch:
    """Records the predictions before each death and compares them at the end (module docstring)."""

    def __init__(self, harness):
        self.h = harness
        self._seen = 0
        self._snapshots = []  # (taken_at, snapshot id, busy set) of finished cycles, oldest first
        self._pending: list[_Pending] = []

    def after_cycle(self) -> None:
        """Note the finished cycle's snapshot, then predict for deaths seen since the last look."""
        self._look()
        cycles = db_api.page_cycles(self.h.db, 1)
        if cycles and cycles[0]["snapshot_id"] is not None:
            snapshot_id = cycles[0]["snapshot_id"]
            if not self._snapshots or self._snapshots[-1][1] != snapshot_id:
                taken_at = db_api.get_snapshot_summary(self.h.db, snapshot_id)["taken_at"]
                self._snapshots.append((runner.as_posix(taken_at), snapshot_id, db_api.busy_set(self.h.db)))
                del self._snapshots[:-3]

    def before_cycle(self) -> None:
        self._look()

    def _look(self):
        fired = self.h.region.faults_fired[self._seen:]
        self._seen = len(self.h.region.faults_fired)
        for fault in fired:
            if fault["kind"] == "host_dies":
                self._predict(tuple(fault["targets"]), fault["at_s"])

    def _predict(self, dead, at_s):
        died_at = self.h.region.clock.start_s + at_s
        before = [s for s in self._snapshots if s[0] <= died_at]
        db = self.h.db
        app_config = db_api.get_app_config(db)
        stale_after_s = self.h.emb.flow_settings.heartbeat_stale_after_s
        for record in db_api.list_aggregates(db):
            agg = record.config
            hosts = tuple(sorted(h for h in dead if agg.name in self.h.region.hosts[h].aggregates))
            if not hosts or not agg.runs_ha:
                continue
            pending = _Pending(agg.name, hosts, at_s)
            self._pending.append(pending)
            if not before:
                pending.why_not = "the hosts died before the first cycle: no analysis before the death"
                continue
            _, snapshot_id, busy = before[-1]
            snap = context.load_slice(db, snapshot_id, agg.name)
            index = snap.index()
            if len(hosts) == 1:
                analysis = failover.analyse_failover(snap, app_config, agg, busy=busy, max_k=1, index=index,
                                                     heartbeat_stale_after_s=stale_after_s)
                risks = [r for r in analysis.at_risk if r.hosts == hosts]
                found = risks[0].without_target if risks else ()
            else:
                found = failover.left_behind(snap, app_config, agg, hosts, busy=busy, index=index,
                                             heartbeat_stale_after_s=stale_after_s).without_target
            pending.predicted = {r.vm_id: r.code for r in found}
            pending.evacuable = frozenset(
                vm.id for h in hosts for vm in index.vms_on(h)
                if ha._skip_reason(vm, app_config, busy, agg.storage_mode, False) is None)

    def verdicts(self) -> list[Verdict]:
        """Every prediction compared with the end of the run."""
        return [self._verdict(p) for p in self._pending]

    def _verdict(self, p):
        def verdict(kept, why, left=()):
            return Verdict(p.aggregate, p.hosts, p.at_s, kept, why, tuple(sorted(p.predicted)), tuple(sorted(left)))
        if p.why_not:
            return verdict(None, p.why_not)
        rows = {h: db_api.get_hypervisor_state(self.h.db, h) for h in p.hosts}
        unhandled = sorted(h for h, row in rows.items()
                           if row["state"] not in HANDLED_STATES or row["fenced_at"] is None)
        if unhandled:
            return verdict(None, "HA did not fence and evacuate %s (KeyVRM state %s)"
                           % (", ".join(unhandled), ", ".join(str(rows[h]["state"]) for h in unhandled)))
        powered = [h for h in p.hosts if self.h.region.hosts[h].powered]
        if powered:
            return verdict(None, "%s powered on again" % ", ".join(powered))
        left = {vm.id for h in p.hosts for vm in self.h.region.hosts[h].vms} & p.evacuable
        planned = {r["vm_id"] for r in db_api.list_recommendations(self.h.db)
                   if r["action"] == "evacuate" and r["source_host"] in p.hosts}
        # a VM HA planned a target for and Nova did not move: execution, not the prediction
        unmoved = left & planned - set(p.predicted)
        left -= unmoved
        note = "; %d planned evacuation(s) Nova did not carry out not compared" % len(unmoved) if unmoved else ""
        if left != set(p.predicted):
            return verdict(False, "predicted without a target %s, left behind %s%s"
                           % (sorted(p.predicted) or "none", sorted(left) or "none", note), left)
        codes = self._event_codes(p)
        wrong = sorted("%s: predicted %s, HA said %s" % (vm, code, codes[vm])
                       for vm, code in p.predicted.items() if vm in codes and codes[vm] != code)
        if wrong:
            return verdict(False, "same VMs, other checks: " + "; ".join(wrong), left)
        return verdict(True, "%d VM(s) predicted and left behind%s" % (len(left), note), left)

    def _event_codes(self, p):
        codes = {}
        for event in db_api.list_events(self.h.db, kind="HA"):
            if event["aggregate_name"] != p.aggregate:
                continue
            for entry in reason_list.ReasonList.from_json(event["reasons"]).entries:
                if entry.vm_id and entry.host in p.hosts and entry.code in failover.NO_TARGET_CODES:
                    codes[entry.vm_id] = entry.code
        return codes
