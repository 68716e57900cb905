"""Other runs' work on hosts an HA run fenced (``recommendations.work_touching_hosts``), one SQL statement.

Shared by the SQLite unit test and the PostgreSQL functional test.
"""

from keyvrm.db import api as db_api
from keyvrm.model import states

_RUNNING = (states.RecommendationStatus.RUNNING,)


def _rec(db, event_id, vm_id, source, target, action="live_migrate", running=True):
    rec_id = db_api.create_recommendation(db, event_id, action, vm_id, source, target, auto_run=True,
                                          ha_round=1 if action == "evacuate" else None)
    if running:
        db_api.set_recommendation_status(db, rec_id, states.RecommendationStatus.RUNNING)
    return rec_id


def check_work_touching_hosts(db):
    """Either end on a host counts, the run's own event and other statuses do not.

    With the aggregate, its evacuations anywhere count and another aggregate's do not.
    """
    own = db_api.create_event(db, "agg-a", "HA", "HA")
    other_ha = db_api.create_event(db, "agg-a", "HA", "HA")
    lb = db_api.create_event(db, "agg-a", "LB", "LB")
    far_ha = db_api.create_event(db, "agg-b", "HA", "HA")
    to_dead = _rec(db, other_ha, "vm-1", "cmp-1", "dead", action="evacuate")
    off_dead = _rec(db, lb, "vm-2", "dead", "cmp-2")
    _rec(db, own, "vm-3", "dead", "cmp-2", action="evacuate")  # the fencing run's own
    _rec(db, lb, "vm-4", "dead", "cmp-3", running=False)  # created, not running
    _rec(db, lb, "vm-5", "cmp-1", "cmp-2")  # elsewhere, not an evacuation
    sibling = _rec(db, other_ha, "vm-6", "cmp-4", "cmp-5", action="evacuate")
    _rec(db, far_ha, "vm-7", "cmp-8", "cmp-9", action="evacuate")  # another aggregate's evacuation

    on_hosts = db_api.work_touching_hosts(db, ["dead"], _RUNNING, own)
    assert [rec["id"] for rec in on_hosts] == [to_dead, off_dead]
    with_aggregate = db_api.work_touching_hosts(db, ["dead"], _RUNNING, own, evacuations_of_aggregate="agg-a")
    assert [rec["id"] for rec in with_aggregate] == [to_dead, off_dead, sibling]
    created = db_api.work_touching_hosts(db, ["dead", "cmp-1"], (states.RecommendationStatus.CREATED,), own)
    assert [rec["vm_id"] for rec in created] == ["vm-4"]
