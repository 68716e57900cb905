"""Planned moves become recommendations once (a re-run task finds them), and run in parallel."""

from __future__ import annotations

import dataclasses
import functools

from keyvrm import clock
from keyvrm.db import api as db_api
from keyvrm.executor import order
from keyvrm.flows import executor

MAX_PARALLEL_RUNS = 8


LOAD_DECIMALS = 2  # a load calculation as operators read it: 135.0, not 134.99999999999997


def _load_dict(load):
    """The load calculation as stored: every percentage rounded to ``LOAD_DECIMALS``."""
    if load is None:
        return None
    return {side: {key: None if pct is None else round(pct, LOAD_DECIMALS) for key, pct in values.items()}
            for side, values in dataclasses.asdict(load).items()}


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
    calls = [functools.partial(executor.run_one, resources, rec_id, start_order=start_order)
             for rec_id in recommendation_ids]
    return dict(zip(recommendation_ids, clock.side_by_side(resources.clock, calls, workers)))
