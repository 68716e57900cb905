"""The sweep on SQLite: work waiting for an operator is never taken for lost, however old; flows' work still is."""

import pytest

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.engine import sweep
from keyvrm.flows import events
from keyvrm.flows import resources as flow_resources
from keyvrm.planning import reasons

START_S = 1_800_000_000.0
LOST = reasons.ENGINE_LOST_DATABASE


class Clock:
    def __init__(self, now_s):
        self.now_s = now_s

    def time(self):
        return self.now_s


class NoFlows:
    """Persistence with no unfinished flow: nothing is carried by a flow."""

    def unfinished(self, mode):
        return []


class Dispatcher(flow_resources.Dispatcher):
    def __init__(self):
        super().__init__()
        self.dispatched = []

    def dispatch(self, name, store):
        self.dispatched.append((name, store))


@pytest.fixture
def clock():
    return Clock(START_S)


@pytest.fixture
def db(tmp_path, clock):
    database = db_api.Database("sqlite:///%s/keyvrm.sqlite" % tmp_path, clock=clock)
    migration.upgrade(database.engine)
    yield database
    database.dispose()


def _codes(event):
    """The codes of an event's stored reasons, in order."""
    return [entry["code"] for entry in event["reasons"]["entries"]]


def lb_event(db, statuses):
    """A finished cycle's LB event waiting for an operator, with one recommendation per status given."""
    cycle = db_api.start_cycle(db)
    db_api.finish_cycle(db, cycle, "completed")
    event_id = db_api.create_event(db, "agg-lb", "LB", "LB", cycle_id=cycle)
    events.add_reasons(db, event_id, reasons.overloaded("agg-lb", [("cmp-5", (("cpu", 95.0, 90.0),))]),
                       status="manual_action")
    recs = []
    for i, status in enumerate(statuses):
        rec_id = db_api.create_recommendation(db, event_id, "live_migrate", "vm-%d" % i, "cmp-5", "cmp-6", False)
        if status != "manual_action":
            db_api.set_recommendation_status(db, rec_id, status)
        recs.append(rec_id)
    return event_id, recs


def swept_after(db, clock, seconds):
    clock.now_s += seconds
    dispatcher = Dispatcher()
    res = flow_resources.EngineResources(db=db, cloud=None, clock=clock, dispatcher=dispatcher,
                                         fencers=lambda app: None)
    return sweep.sweep(res, NoFlows(), dispatcher), dispatcher


def test_a_manual_lb_event_older_than_the_grace_is_left_to_the_operator(db, clock):
    event_id, (rec_id,) = lb_event(db, ["manual_action"])
    swept, dispatcher = swept_after(db, clock, 2 * sweep.GRACE_S)
    assert swept.count == 0 and dispatcher.dispatched == []
    event = db_api.get_event_summary(db, event_id)
    assert event["status"] == "manual_action" and _codes(event) == ["overloaded", "overloaded"]
    assert db_api.get_recommendation(db, rec_id)["status"] == "manual_action"


def test_a_manual_event_whose_recommendations_all_ended_is_left_to_the_cycle_that_settles_it(db, clock):
    event_id, _ = lb_event(db, ["manual_action", "manual_action"])
    for rec in db_api.list_recommendations(db, event_id=event_id):
        db_api.set_recommendation_status(db, rec["id"], "cancelled", reason="cancelled by admin")
    swept, _ = swept_after(db, clock, 2 * sweep.GRACE_S)
    assert swept.count == 0
    assert LOST not in _codes(db_api.get_event_summary(db, event_id))


def test_a_run_recommendation_no_flow_carries_is_resumed_and_its_manual_sibling_left_alone(db, clock):
    event_id, (waiting, running) = lb_event(db, ["manual_action", "running"])
    swept, dispatcher = swept_after(db, clock, 2 * sweep.GRACE_S)
    assert dispatcher.dispatched == [("executor", {"recommendation_id": running})]
    assert swept.recommendations_resumed == [running] and swept.events_completed == []
    assert db_api.get_recommendation(db, waiting)["status"] == "manual_action"
    event = db_api.get_event_summary(db, event_id)
    assert event["status"] == "manual_action" and LOST in _codes(event)


def test_an_event_no_flow_carries_that_waits_for_no_operator_is_still_settled_as_lost(db, clock):
    cycle = db_api.start_cycle(db)
    db_api.finish_cycle(db, cycle, "completed")
    event_id = db_api.create_event(db, "agg-ha", "HA", "HA", cycle_id=cycle)
    db_api.set_event_status(db, event_id, "generating")
    swept, _ = swept_after(db, clock, 2 * sweep.GRACE_S)
    assert swept.events_completed == [event_id]
    event = db_api.get_event_summary(db, event_id)
    assert (event["status"], event["state"], event["reason_code"]) == (
        "completed", "warning", reasons.ENGINE_LOST_DATABASE)
