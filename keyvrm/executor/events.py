"""An event's final state and counts once all its recommendations are final (SPEC 4)."""

from __future__ import annotations

from typing import Optional

from keyvrm.model import states


def state_of(statuses) -> Optional[str]:
    """The event state the recommendation statuses give, or None while one is still open.

    All succeeded (or none at all) -> ``healthy``; all failed -> ``error``; any other mix
    of failed or cancelled ones -> ``warning``.
    """
    statuses = list(statuses)
    if any(s not in states.RECOMMENDATION_FINAL for s in statuses):
        return None
    if all(s == states.RecommendationStatus.SUCCEEDED for s in statuses):
        return states.EventState.HEALTHY
    if all(s == states.RecommendationStatus.FAILED for s in statuses):
        return states.EventState.ERROR
    return states.EventState.WARNING


def final_counts(statuses) -> dict:
    """How many recommendations ended in each final status, in the order succeeded, failed, cancelled."""
    statuses = list(statuses)
    return {s: statuses.count(s) for s in states.RECOMMENDATION_FINAL if s in statuses}
