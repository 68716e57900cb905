"""Planned moves become recommendations once (a re-run task finds them), and run in parallel."""

from __future__ import annotations

from concurrent import futures
import dataclasses

from keyvrm.db import api as db_api
from keyvrm.executor import order
from keyvrm.flows import executor

MAX_PARALLEL_RUNS = 8


def _load_dict(load):
    return None if load is None else dataclasses.asdict(load)


def create_recommendations(db, event_id, moves, auto_run: bool) -> list:
    """Ids of the event's recommendations for ``moves``, created only where missing.

    A move is identified by (VM, action, HA round) within its event, so a task that runs
    again after a crash never creates a second recommendation for the same move.
    """
    existing = {(r["vm_id"], r["action"], r["ha_round"]): r["id"]
                for r in db_api.list_recommendations(db, event_id=event_id)}
    ids = []
    for move in moves:
        key = (move.vm_id, move.action, move.ha_round)
        if key not in existing:
            existing[key] = db_api.create_recommendation(
                db, event_id, move.action, move.vm_id, move.source, move.target, auto_run,
                ha_round=move.ha_round, load_calculation=_load_dict(move.load))
        ids.append(existing[key])
    return ids


def run_all(resources, recommendation_ids) -> dict:
    """Run the recommendations side by side, asking Nova in their planned order; {id: final status}."""
    if not recommendation_ids:
        return {}
    workers = min(MAX_PARALLEL_RUNS, len(recommendation_ids))
    start_order = order.StartOrder(recommendation_ids)
    with futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="keyvrm-ha-exec") as pool:
        statuses = pool.map(lambda rec_id: executor.run_one(resources, rec_id, start_order=start_order),
                            recommendation_ids)
        return dict(zip(recommendation_ids, statuses))
