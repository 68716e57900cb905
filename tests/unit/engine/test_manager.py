"""RPC endpoints start an ExecutorFlow only for what the database says can use one."""

import pytest

from keyvrm.db import api as db_api
from keyvrm.engine import manager


class Dispatcher:
    def __init__(self, db):
        self.resources = type("Resources", (), {"db": db})()
        self.dispatched = []

    def dispatch(self, name, store):
        self.dispatched.append((name, store))


class Engine:
    def __init__(self, db):
        self.dispatcher = Dispatcher(db)
        self.cycles = 0

    def run_cycle_now(self):
        self.cycles += 1


@pytest.fixture
def setup(sqlite_db):
    engine = Engine(sqlite_db)
    event_id = db_api.create_event(sqlite_db, "agg", "LB", "LB")

    def rec(auto_run):
        return db_api.create_recommendation(sqlite_db, event_id, "live_migrate", "vm", "h1", "h2",
                                            auto_run=auto_run)
    return sqlite_db, engine, manager.EngineManager(engine), rec


def test_run_starts_executor_flow_for_a_created_recommendation(setup):
    db, engine, endpoints, rec = setup
    rec_id = rec(auto_run=True)
    endpoints.run_recommendation({}, rec_id)
    assert engine.dispatcher.dispatched == [("executor", {"recommendation_id": rec_id})]


def test_run_ignores_manual_running_and_unknown_recommendations(setup):
    db, engine, endpoints, rec = setup
    manual, running = rec(auto_run=False), rec(auto_run=True)
    db_api.set_recommendation_status(db, running, "running")
    for rec_id in (manual, running, "no-such-id"):
        endpoints.run_recommendation({}, rec_id)
    assert engine.dispatcher.dispatched == []


def test_cancel_settles_through_executor_flow_unless_running(setup):
    db, engine, endpoints, rec = setup
    cancelled, running = rec(auto_run=False), rec(auto_run=True)
    db_api.request_recommendation_cancel(db, cancelled, "admin")
    db_api.set_recommendation_status(db, running, "running")
    endpoints.cancel_recommendation({}, cancelled)
    endpoints.cancel_recommendation({}, running)
    assert engine.dispatcher.dispatched == [("executor", {"recommendation_id": cancelled})]


def test_cycle_now_starts_a_cycle(setup):
    db, engine, endpoints, rec = setup
    endpoints.cycle_now({})
    assert engine.cycles == 1
