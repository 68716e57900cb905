"""What a demo run achieved: cycles, events, recommendations, evacuations, recovery time, LB effect."""

from __future__ import annotations

import collections
from typing import Optional

from keyvrm.db import api as db_api
from keyvrm.scheduling import scoring
from keyvrm.simulator import compute

DONE = ("done", "completed")
# The same kill on real Nova 34 (the fake cloud of tests/e2e with Nova's default timers and
# KeyVRM's shipped defaults with Nova fencing, 8 computes, 5 kills): median kill -> every server
# ACTIVE elsewhere of tests/benchmarks/bench_recovery.py. The demo's region (demo-embedded.yaml)
# takes as long per evacuation as those fake computes do, so the two figures compare like with like.
REAL_NOVA_RECOVERY_S = 64.5


def host_scores(snapshot, weights: dict, hosts) -> dict:
    """syn_score (%) of ``hosts`` in ``snapshot`` (None: no metrics)."""
    index = snapshot.index()
    return {name: scoring.syn_score(scoring.load_of(index.hypervisors[name]), weights)
            for name in hosts if name in index.hypervisors}


def _imbalance(scores: dict) -> Optional[float]:
    values = [v for v in scores.values() if v is not None]
    return round(max(values) - min(values), 2) if values else None


def lb_effect(db) -> Optional[dict]:
    """Per-host syn_score of the first aggregate LB acted on: at the LB run, and in the last snapshot."""
    lb_events = [e for e in db_api.list_events(db, kind="LB") if e["snapshot_id"]
                 and db_api.list_recommendations(db, event_id=e["id"])]
    if not lb_events:
        return None
    event = lb_events[0]
    agg = db_api.get_aggregate_config(db, event["aggregate_name"])
    before = db_api.load_snapshot(db, event["snapshot_id"])
    after = db_api.load_snapshot(db, db_api.list_snapshots(db, 1)[0]["id"])
    hosts = [h.name for h in before.index().hypervisors_of(agg.name)]
    scores_before = host_scores(before, agg.lb_weights, hosts)
    scores_after = host_scores(after, agg.lb_weights, hosts)
    return {"aggregate": agg.name, "threshold_pct": agg.lb_overload_threshold,
            "before": scores_before, "after": scores_after,
            "imbalance_before_pct": _imbalance(scores_before), "imbalance_after_pct": _imbalance(scores_after)}


def evacuations(region) -> dict:
    """Per failed host: when it died, its evacuations (simulated s since start) and the time to recovery."""
    start_s = region.clock.start_s
    died = {}
    for fault in region.faults_fired:
        if fault["kind"] == "host_dies":
            for host in fault["targets"]:
                died.setdefault(host, fault["at_s"])
    result = {}
    for host, at_s in died.items():
        moves = [m for m in region.migrations.values()
                 if m.source_host == host and m.migration_type == compute.EVACUATION]
        done = [m for m in moves if m.status in DONE]
        left = [vm.id for vm in region.hosts[host].vms]
        result[host] = {
            "split_s": _split(region, region.hosts[host], at_s, moves, done, left),
            "died_at_s": at_s,
            "evacuations": [{"vm": m.server_id, "target": m.dest_host, "status": m.status,
                             "start_s": round(m.created_at - start_s, 1), "end_s": round(m.updated_at - start_s, 1)}
                            for m in sorted(moves, key=lambda m: m.created_at)],
            "vms_evacuated": len({m.server_id for m in done}), "vms_left_behind": len(left),
            "time_to_recovery_s": (round(max(m.updated_at for m in done) - start_s - at_s, 1)
                                   if done and not left else None)}
    return result


def _split(region, host, died_at_s, moves, done, left) -> Optional[dict]:
    """Where a recovery's time went: Nova's verdict, KeyVRM (to the last evacuation accepted), the rebuilds."""
    updated_at = region.service_updated_at(host)
    if not done or left or updated_at is None:
        return None
    start_s = region.clock.start_s
    verdict_s = updated_at + region.options.service_down_time_s - start_s - died_at_s
    accepted_s = max(m.created_at for m in moves) - start_s - died_at_s
    recovered_s = max(m.updated_at for m in done) - start_s - died_at_s
    return {"nova_verdict": round(verdict_s, 1), "keyvrm": round(accepted_s - verdict_s, 1),
            "rebuild": round(recovered_s - accepted_s, 1)}


def summarize(db, region, wall_s: float) -> dict:
    """The run's summary (the ``--json`` document)."""
    cycles = db_api.page_cycles(db, 100000)
    events = db_api.list_events(db)
    recs = db_api.list_recommendations(db)
    evac = evacuations(region)
    lb = lb_effect(db)
    return {
        "wall_s": round(wall_s, 1), "simulated_s": round(region.clock.elapsed_s, 1),
        "cycles": len(cycles),
        "cycles_by_status": dict(collections.Counter(c["status"] for c in cycles)),
        "events_by_state": dict(collections.Counter(e["state"] or e["status"] for e in events)),
        "recommendations_by_status": dict(collections.Counter(r["status"] for r in recs)),
        "vms_evacuated": sum(h["vms_evacuated"] for h in evac.values()),
        "vms_left_behind": sum(h["vms_left_behind"] for h in evac.values()),
        "time_to_recovery_s": {host: h["time_to_recovery_s"] for host, h in evac.items()},
        "real_nova_recovery_s": REAL_NOVA_RECOVERY_S,
        "lb_migrations": sum(1 for r in recs if r["action"] == "live_migrate" and r["status"] == "succeeded"),
        "syn_score_imbalance_pct": None if lb is None else {
            "aggregate": lb["aggregate"], "before": lb["imbalance_before_pct"], "after": lb["imbalance_after_pct"]},
        "evacuations": evac, "lb": lb,
    }


def render(summary: dict) -> str:
    """The summary as a few readable lines."""
    lines = ["summary: %d cycles in %.0f s wall (%.0f s simulated)" % (
        summary["cycles"], summary["wall_s"], summary["simulated_s"]),
        "  events by state: %s" % summary["events_by_state"],
        "  recommendations by status: %s" % summary["recommendations_by_status"],
        "  VMs evacuated: %d, left behind: %d" % (summary["vms_evacuated"], summary["vms_left_behind"])]
    for host, ttr in summary["time_to_recovery_s"].items():
        text = "%.0f s (simulated)" % ttr if ttr is not None else "not recovered"
        lines.append("  %s: time to recovery %s" % (host, text))
        split = summary["evacuations"][host]["split_s"]
        if split:
            real_s = summary["real_nova_recovery_s"]
            lines.append("    = Nova's verdict %.0f s + KeyVRM %.0f s + rebuild %.0f s; the same kill on real "
                         "Nova (fake computes, rebuilding as the demo's region does): %.0f s (demo / real %.2f)" % (
                             split["nova_verdict"], split["keyvrm"], split["rebuild"], real_s, ttr / real_s))
    lines.append("  LB migrations: %d" % summary["lb_migrations"])
    imbalance = summary["syn_score_imbalance_pct"]
    if imbalance and imbalance["before"] is not None and imbalance["after"] is not None:
        lines.append("  syn_score imbalance in %s: %.1f%% before LB, %.1f%% after" % (
            imbalance["aggregate"], imbalance["before"], imbalance["after"]))
    return "\n".join(lines)
