"""Planned moves become recommendations once (a re-run task finds them), and run in parallel, tier by tier."""

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


def run_all(resources, recommendation_ids, evacuate_order=None) -> dict:
    """Run the recommendations side by side, tier by tier; {id: final status}.

    ``evacuate_order`` maps an id to its VM's ``evacuate_order`` (``order.tiers_by_order``);
    without it the runs form one tier. Runs start in tier order, so a thread of the pool
    never waits for a tier whose runs have no thread yet.
    """
    if not recommendation_ids:
        return {}
    tiers = order.tiers_by_order(recommendation_ids, evacuate_order or {})
    gate = order.TierGate(tiers, resources.clock, resources.conf.executor.tier_wait_s)
    ids = [rec_id for tier in tiers for rec_id in tier]
    workers = min(MAX_PARALLEL_RUNS, len(ids))
    calls = [functools.partial(executor.run_one, resources, rec_id, tiers=gate) for rec_id in ids]
    return dict(zip(ids, clock.side_by_side(resources.clock, calls, workers)))
