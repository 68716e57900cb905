"""The demo's live table: per aggregate, its events, recommendations and operations so far."""

from __future__ import annotations

import collections

from keyvrm.db import api as db_api


def aggregate_rows(db) -> list:
    """One row per aggregate: marker, events by state, last event, recommendations by status, operations."""
    recs_by_event = collections.defaultdict(list)
    for rec in db_api.list_recommendations(db):
        recs_by_event[rec["event_id"]].append(rec)
    rows = []
    for record in db_api.list_aggregates(db):
        agg = record.config
        events = db_api.list_events(db, aggregate_name=agg.name)
        states = collections.Counter(e["state"] or e["status"] for e in events)
        recs = [r for e in events for r in recs_by_event[e["id"]]]
        operations = sum(len(db_api.list_operations(db, r["id"])) for r in recs)
        last = events[-1] if events else None
        rows.append({
            "aggregate": agg.name, "mode": "NOOP" if agg.no_op_mode or not agg.marker else agg.marker,
            "events": dict(states), "last_event": None if last is None else "%s %s %s (%s)" % (
                last["kind"], last["status"], last["state"] or "-", last["reason_code"] or "-"),
            "recommendations": dict(collections.Counter(r["status"] for r in recs)),
            "operations": operations})
    return rows


def _counts(counts: dict) -> str:
    return " ".join("%s=%d" % item for item in sorted(counts.items())) or "-"


def render(db, cycle_count: int, sim_elapsed_s: float) -> str:
    """The table as plain text, headed by the cycle count and simulated time."""
    header = ("aggregate", "mode", "events", "last event", "recommendations", "ops")
    lines = ["cycle %d  t=+%dm%02ds (simulated)" % (cycle_count, sim_elapsed_s // 60, sim_elapsed_s % 60),
             "%-10s %-6s %-28s %-44s %-32s %s" % header]
    for row in aggregate_rows(db):
        lines.append("%-10s %-6s %-28s %-44s %-32s %d" % (
            row["aggregate"], row["mode"], _counts(row["events"]), row["last_event"] or "-",
            _counts(row["recommendations"]), row["operations"]))
    return "\n".join(lines)
