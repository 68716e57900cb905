"""Which VMs KeyVRM moved off a host and where (``recommendations.moved_off``), for failback.

Shared by the SQLite unit test and the PostgreSQL functional test.
"""

from keyvrm.db import api as db_api
from keyvrm.model import states

_OK = states.RecommendationStatus.SUCCEEDED


def _move(db, kind, vm_id, source, target, status=_OK, action="live_migrate"):
    event_id = db_api.create_event(db, "agg-m", kind, "HA+LB")
    rec_id = db_api.create_recommendation(db, event_id, action, vm_id, source, target, auto_run=True,
                                          ha_round=1 if action == "evacuate" else None)
    db_api.set_recommendation_status(db, rec_id, states.RecommendationStatus.RUNNING)
    db_api.set_recommendation_status(db, rec_id, status)


def check_moved_off(db):
    """Drain and HA moves count, LB's and failed ones do not, a VM moved on since is KeyVRM's no more."""
    _move(db, "drain", "drained", "home", "a")
    _move(db, "HA", "evacuated", "home", "b", action="evacuate")
    _move(db, "LB", "balanced", "home", "a")
    _move(db, "drain", "failed", "home", "a", status=states.RecommendationStatus.FAILED)
    _move(db, "drain", "moved-on", "home", "a")
    _move(db, "LB", "moved-on", "a", "b")
    _move(db, "drain", "elsewhere", "other", "a")
    kinds = (states.EventKind.DRAIN, states.EventKind.HA)
    assert db_api.moved_off(db, "home", kinds) == {"drained": "a", "evacuated": "b"}
    assert db_api.moved_off(db, "home", (states.EventKind.LB,)) == {"balanced": "a"}
