"""Manual recommendations that nobody ran in time are cancelled (SPEC 6.5)."""

from __future__ import annotations

import datetime

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import states


def cancel_expired_manual(db, now_s, timeout_s) -> list:
    """Cancel every ``manual_action`` recommendation older than ``timeout_s``; their ids.

    Age counts from the recommendation's creation; ``now_s`` is POSIX seconds. One that
    an operator started meanwhile (no longer ``manual_action``) is left alone.
    """
    cutoff = models.as_stored_time(now_s) - datetime.timedelta(seconds=timeout_s)
    minutes = timeout_s / 60.0
    cancelled = []
    for rec in db_api.list_recommendations(db, status=states.RecommendationStatus.MANUAL_ACTION, created_before=cutoff):
        reason = "manual action not started within %g min (executor_manual_action_timeout)" % minutes
        try:
            db_api.set_recommendation_status(db, rec["id"], states.RecommendationStatus.CANCELLED, reason=reason)
        except exception.Conflict:
            continue
        db_api.add_operation(db, rec["id"], states.OperationKind.CANCEL, 0, message=reason)
        cancelled.append(rec["id"])
    return cancelled
