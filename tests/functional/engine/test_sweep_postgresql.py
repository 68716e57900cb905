"""The sweep on PostgreSQL: lost work is resumed or settled; carried work and work waiting for an operator are not."""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm.engine import persistence as engine_persistence
from keyvrm.engine import sweep
from keyvrm.flows import events
from keyvrm.flows import resources as flow_resources
from keyvrm.planning import reasons


class Dispatcher(flow_resources.Dispatcher):
    def __init__(self):
        super().__init__()
        self.dispatched = []

    def dispatch(self, name, store):
        self.dispatched.append((name, store))


@pytest.fixture
def persistence(pg_db):
    persisted = engine_persistence.Persistence(pg_db.url)
    persisted.upgrade()
    yield persisted
    for record in persisted.unfinished(engine_persistence.LOCAL):
        persisted.forget(record.book.uuid)
    persisted.close()


def lost_and_carried_work(db, persistence):
    """A region's records as an engine that lost its database mid-step left them, beside live ones."""
    lost_cycle, live_cycle = db_api.start_cycle(db), db_api.start_cycle(db)
    persistence.create("lb", {"cycle_id": live_cycle, "aggregate": "agg-live"}, engine_persistence.LOCAL)
    ha_event = db_api.create_event(db, "agg-ha", "HA", "HA", cycle_id=lost_cycle)
    db_api.set_event_status(db, ha_event, "executing")
    running = db_api.create_recommendation(db, ha_event, "evacuate", "vm-run", "h1", "h9", True, ha_round=1)
    stop = db_api.create_recommendation(db, ha_event, "stop", "vm-stop", "h1", None, True)
    done = db_api.create_recommendation(db, ha_event, "evacuate", "vm-done", "h1", "h9", True, ha_round=1)
    for rec_id in (running, stop, done):
        db_api.set_recommendation_status(db, rec_id, "running")
    db_api.set_recommendation_status(db, done, "succeeded")
    for host, event in (("h1", ha_event),):
        assert db_api.claim_hypervisor(db, host, event)
        db_api.set_hypervisor_state(db, host, "fenced", fencing=[{"fencer": "ipmi", "confirmed": True}], event_id=event)
        db_api.set_hypervisor_state(db, host, "evacuating", event_id=event)
    deadline = datetime.datetime(2026, 12, 2, 16, 0, 0)
    db_api.begin_vm_transition(db, "vm-run", "executor:%s:aaaa" % running, "migrating", deadline)
    db_api.begin_vm_transition(db, "vm-done", "executor:%s:bbbb" % done, "migrating", deadline)
    fence_event = db_api.create_event(db, "agg-fence", "HA", "HA", cycle_id=lost_cycle)
    db_api.set_event_status(db, fence_event, "generating")
    assert db_api.claim_hypervisor(db, "h2", fence_event)
    live_event = db_api.create_event(db, "agg-live", "LB", "LB", cycle_id=live_cycle)
    db_api.set_event_status(db, live_event, "generating")
    assert db_api.claim_hypervisor(db, "h3", live_event)
    manual_event = db_api.create_event(db, "agg-manual", "LB", "LB", cycle_id=lost_cycle)
    events.add_reasons(db, manual_event, reasons.overloaded("agg-manual", [("h5", (("cpu", 95.0, 90.0),))]),
                       status="manual_action")
    waiting = db_api.create_recommendation(db, manual_event, "live_migrate", "vm-wait", "h5", "h6", False)
    return dict(lost_cycle=lost_cycle, live_cycle=live_cycle, ha_event=ha_event, running=running, stop=stop,
                done=done, fence_event=fence_event, live_event=live_event, manual_event=manual_event,
                waiting=waiting)


def test_the_sweep_resumes_lost_recommendations_settles_the_rest_and_leaves_live_work_alone(pg_db, persistence):
    ids = lost_and_carried_work(pg_db, persistence)
    res = flow_resources.EngineResources(db=pg_db, cloud=None, clock=None, dispatcher=Dispatcher(),
                                         fencers=lambda app: None)
    assert sweep.sweep(res, persistence, res.dispatcher).count == 0  # all of it is younger than the grace

    swept = sweep.sweep(res, persistence, res.dispatcher, grace_s=0.0)

    assert res.dispatcher.dispatched == [("executor", {"recommendation_id": ids["running"]})]
    assert swept.recommendations_resumed == [ids["running"]]
    stop = db_api.get_recommendation(pg_db, ids["stop"])
    assert stop["status"] == "cancelled" and "engine lost its database mid-step" in stop["reason"]
    ha_event = db_api.get_event_summary(pg_db, ids["ha_event"])
    assert ha_event["status"] == "executing"  # the resumed evacuation's flow settles it
    assert reasons.ENGINE_LOST_DATABASE in [e["code"] for e in ha_event["reasons"]["entries"]]
    fence_event = db_api.get_event_summary(pg_db, ids["fence_event"])
    assert (fence_event["status"], fence_event["state"], fence_event["reason_code"]) == (
        "completed", "warning", reasons.ENGINE_LOST_DATABASE)
    live_event = db_api.get_event_summary(pg_db, ids["live_event"])
    assert live_event["status"] == "generating" and not live_event["reasons"]
    manual_event = db_api.get_event_summary(pg_db, ids["manual_event"])  # the operator's, not lost
    assert manual_event["status"] == "manual_action"
    assert [e["code"] for e in manual_event["reasons"]["entries"]] == ["overloaded", "overloaded"]
    assert db_api.get_recommendation(pg_db, ids["waiting"])["status"] == "manual_action"
    assert swept.cycles_failed == [ids["lost_cycle"]]
    assert db_api.get_cycle_summary(pg_db, ids["lost_cycle"])["status"] == "failed"
    assert db_api.get_cycle_summary(pg_db, ids["live_cycle"])["status"] == "running"
    # h1 still has an evacuation running from it: it stays fenced for it; h2's run is gone; h3's is live
    states = {h: db_api.get_hypervisor_state(pg_db, h)["state"] for h in ("h1", "h2", "h3")}
    assert states == {"h1": "evacuating", "h2": "ok", "h3": "fencing"}
    assert swept.vms_unlocked == ["vm-done"]
    assert db_api.get_vm_state(pg_db, "vm-run")["locked"] is True


def test_a_second_sweep_finds_nothing_new_to_resume(pg_db, persistence):
    lost_and_carried_work(pg_db, persistence)
    res = flow_resources.EngineResources(db=pg_db, cloud=None, clock=None, dispatcher=Dispatcher(),
                                         fencers=lambda app: None)
    sweep.sweep(res, persistence, res.dispatcher, grace_s=0.0)
    again = sweep.sweep(res, persistence, res.dispatcher, grace_s=0.0)
    # the running evacuation is resumed again only because no flow was really started for it here
    assert again.cycles_failed == [] and again.events_completed == [] and again.hosts_released == []
    assert again.vms_unlocked == [] and again.recommendations_cancelled == []
