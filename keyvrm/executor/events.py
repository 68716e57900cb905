"""An event's final state once all its recommendations are final (SPEC 4)."""

from __future__ import annotations

from typing import Optional

from keyvrm.db import api as db_api
from keyvrm.db import models


def state_of(statuses) -> Optional[str]:
    """The event state the recommendation statuses give, or None while one is still open.

    All succeeded (or none at all) -> ``healthy``; all failed -> ``error``; any other mix
    of failed or cancelled ones -> ``warning``.
    """
    statuses = list(statuses)
    if any(s not in models.RECOMMENDATION_FINAL for s in statuses):
        return None
    if all(s == "succeeded" for s in statuses):
        return "healthy"
    if all(s == "failed" for s in statuses):
        return "error"
    return "warning"


def settle_event(db, event_id) -> Optional[str]:
    """Complete the event with its state when all its recommendations are final; that state.

    Returns None (and changes nothing) while some recommendation is still open.
    """
    statuses = [r["status"] for r in db_api.list_recommendations(db, event_id=event_id)]
    state = state_of(statuses)
    if state is None:
        return None
    counts = {s: statuses.count(s) for s in models.RECOMMENDATION_FINAL if s in statuses}
    reason = ", ".join("%d %s" % (n, s) for s, n in counts.items()) or "nothing to do"
    db_api.set_event_status(db, event_id, "completed", state=state,
                            reason_code="recommendations_final", reason=reason)
    return state
