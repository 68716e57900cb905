"""The LB run history lb_persistence reads (``recent_run_hosts``), recorded as the engine records runs.

Shared by the SQLite unit test and the PostgreSQL functional test.
"""

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.flows import events
from keyvrm.planning import reasons

AGG = "agg-h"
CAUSE = (("cpu", 90.0, 85.0),)


def record_runs(db):
    """Four LB runs of AGG, oldest first: pending (a, b), too early, event (a + 11 more), pending (a, c).

    The event's 12 overloaded hosts exceed the reason list's bound: some are kept as keys only.
    """
    many = ["a"] + ["h%02d" % i for i in range(11)]
    runs = [("outcome", reasons.imbalance_pending(AGG, [("a", CAUSE, 1), ("b", CAUSE, 1)], 3)),
            ("outcome", [reasons.lb_too_early(AGG, 60.0)]),
            ("event", reasons.overloaded(AGG, [(h, CAUSE) for h in many])),
            ("outcome", reasons.imbalance_pending(AGG, [("a", CAUSE, 2), ("c", CAUSE, 1)], 3))]
    for kind, found in runs:  # an outcome runs at its recording, an event at its creation: in this order
        cycle_id = db_api.start_cycle(db)
        if kind == "outcome":
            code, listed = events.describe(found)
            db_api.record_cycle_outcome(db, cycle_id, AGG, "LB", code, listed, models.utcnow())
        else:
            events.add_reasons(db, db_api.create_event(db, AGG, "LB", "LB", cycle_id=cycle_id), found)
    return many


def check_history(db):
    """Runs newest first, the skipped one left out, an event's hosts kept by the bound as keys included."""
    many = record_runs(db)
    codes = (reasons.OVERLOADED, reasons.LB_IMBALANCE_PENDING)
    skip = (reasons.LB_TOO_EARLY, reasons.HA_ACTED)
    newest, event, oldest = db_api.recent_run_hosts(db, AGG, "LB", 5, codes, skip_reason_codes=skip)
    assert newest == {"a", "c"} and event == set(many) and oldest == {"a", "b"}
    assert db_api.recent_run_hosts(db, AGG, "LB", 1, codes, skip_reason_codes=skip) == [{"a", "c"}]
    assert db_api.recent_run_hosts(db, "agg-other", "LB", 3, codes, skip_reason_codes=skip) == []
