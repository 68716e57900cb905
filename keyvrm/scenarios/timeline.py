"""A scenario run as a person reads it: simulated time, cycle, what KeyVRM decided and why.

Lines are in time order (``mm:ss`` after the region's start): faults as they fired,
the engine's sweeps (what each resumed or settled) and history purges, operator calls
and the API's answers, each cycle with its outcome, the events it wrote and their
recommendations (final status), the runs with nothing to do, alerts, and the invariants
broken after a cycle.
"""

from __future__ import annotations

import datetime

from keyvrm.db import api as db_api
from keyvrm.model import reason_list

REASON_WIDTH = 160


def clock_text(seconds: float) -> str:
    """``mm:ss`` (``h:mm:ss`` past an hour) of ``seconds`` after the start."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return ("%d:%02d:%02d" % (hours, rest // 60, rest % 60)) if hours else "%02d:%02d" % divmod(rest, 60)


def _short(text) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= REASON_WIDTH else text[:REASON_WIDTH - 3] + "..."


def _housekeeping_lines(housekept):
    """(at_s, text) of every sweep (what it found) and of every purge that deleted rows."""
    for at_s, done in housekept:
        if done.swept is not None:
            yield at_s, "sweep: " + done.swept.describe()
        if done.purged and any(done.purged.values()):
            yield at_s, "history purged in %d batches: %s" % (
                done.purge_batches, ", ".join("%d %s" % (n, table) for table, n in done.purged.items() if n))


def render(harness, acts_done, violations) -> str:
    """The timeline of ``harness``'s run; ``acts_done``: [(at_s, text)], ``violations``: [(at_s, text)]."""
    start = datetime.datetime.fromtimestamp(harness.region.clock.start_s, datetime.timezone.utc).replace(tzinfo=None)

    def after(moment):
        return (moment - start).total_seconds() if moment is not None else 0.0

    entries = [(f["at_s"], 0, "fault %s %s" % (f["kind"], " ".join(f["targets"]))) for f in harness.region.faults_fired]
    entries += [(at_s, 1, text) for at_s, text in _housekeeping_lines(harness.housekept)]
    entries += [(at_s, 1, "operator " + text) for at_s, text in acts_done]
    events = db_api.list_events(harness.db)
    recommendations = db_api.list_recommendations(harness.db)
    for cycle in db_api.page_cycles(harness.db, 100000):
        lines = ["cycle %d %s [%s] %s" % (cycle["id"], cycle["status"], cycle["reason_code"] or "-",
                                          _short(cycle["reason"]))]
        for event in (e for e in events if e["cycle_id"] == cycle["id"]):
            lines.append("  %s %s %s/%s [%s] %s" % (event["kind"], event["aggregate_name"], event["state"],
                                                    event["status"], event["reason_code"],
                                                    _short(reason_list.ReasonList.from_json(event["reasons"]).text())))
            for rec in (r for r in recommendations if r["event_id"] == event["id"]):
                lines.append("    %s %s %s -> %s: %s (attempts %d) %s" % (
                    rec["action"], rec["vm_id"], rec["source_host"], rec["target_host"] or "?", rec["status"],
                    rec["attempts"], _short(rec["reason"])))
        for outcome in db_api.get_cycle_summary(harness.db, cycle["id"])["outcomes"]:
            lines.append("  %s %s [%s]" % (outcome["kind"], outcome["aggregate_name"], outcome["reason_code"]))
        entries.append((after(cycle["started_at"]), 2, "\n".join(lines)))
    entries += [(a.at_s - harness.region.clock.start_s, 3, "alert %s %s" % (a.kind, _short(str(a.payload))))
                for a in harness.alerts]
    entries += [(at_s, 4, "INVARIANT BROKEN: " + text) for at_s, text in violations]
    out = []
    for at_s, _, text in sorted(entries, key=lambda e: (e[0], e[1])):
        first, *rest = text.split("\n")
        out.append("%8s  %s" % (clock_text(at_s), first))
        out.extend("          " + line for line in rest)
    return "\n".join(out)
