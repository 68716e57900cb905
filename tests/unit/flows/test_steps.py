"""Flow steps wait out a database outage and run again, instead of failing (and reverting) their flow."""

import threading

from oslo_db import exception as db_exception
import pytest
from taskflow import engines
from taskflow.patterns import linear_flow

from keyvrm.db import availability
from keyvrm.flows import resources as flow_resources
from keyvrm.flows import steps


class Database:
    """A database that is unreachable for the first ``down_pings`` pings."""

    def __init__(self, down_pings):
        self.down_pings = down_pings
        self.pings = 0

    def ping(self):
        self.pings += 1
        if self.pings <= self.down_pings:
            raise db_exception.DBConnectionError("connection refused")


class Dispatcher(flow_resources.Dispatcher):
    def dispatch(self, name, store):
        raise AssertionError("not used")


def resources(db):
    return flow_resources.EngineResources(db=db, cloud=None, clock=None, dispatcher=Dispatcher(),
                                          fencers=lambda app: None)


class Doubles(steps.FlowTask):
    """Doubles ``number``; the first ``failures`` runs lose the database half-way."""

    def __init__(self, res, failures, error=None):
        super().__init__(res, "double", provides="doubled")
        self.failures = failures
        self.error = error or db_exception.DBConnectionError("server closed the connection unexpectedly")
        self.runs = 0

    def execute(self, number):
        self.runs += 1
        if self.runs <= self.failures:
            raise self.error
        return number * 2


@pytest.fixture(autouse=True)
def no_sleeping(monkeypatch):
    monkeypatch.setattr(availability.time, "sleep", lambda s: None)


def test_a_step_that_loses_the_database_runs_again_once_it_answers_and_its_flow_succeeds():
    db = Database(down_pings=3)
    step = Doubles(resources(db), failures=2)
    engine = engines.load(linear_flow.Flow("f").add(step), store={"number": 21})
    engine.run()
    assert engine.storage.fetch("doubled") == 42
    assert step.runs == 3
    assert db.pings == 5  # after the first failure three refused, the fourth answered; one after the second


def test_a_step_keeps_taskflows_argument_mapping():
    step = Doubles(resources(Database(0)), failures=0)
    assert set(step.requires) == {"number"} and set(step.provides) == {"doubled"}


def test_other_errors_fail_the_step_at_once():
    step = Doubles(resources(Database(0)), failures=1, error=ValueError("a real bug"))
    engine = engines.load(linear_flow.Flow("f").add(step), store={"number": 1})
    with pytest.raises(ValueError):
        engine.run()
    assert step.runs == 1


def test_a_stopping_engine_stops_waiting_and_the_error_propagates():
    res = resources(Database(down_pings=10 ** 6))
    res.dispatcher.stopping.set()
    step = Doubles(res, failures=1)
    with pytest.raises(db_exception.DBConnectionError):
        step.execute(number=1)
    assert step.runs == 1


def test_stop_during_an_outage_ends_the_wait():
    res = resources(Database(down_pings=10 ** 6))
    pings = []

    def ping():
        pings.append(1)
        if len(pings) == 5:
            res.dispatcher.stopping.set()
        raise db_exception.DBConnectionError("still down")

    res.db.ping = ping
    step = Doubles(res, failures=10)
    worker = threading.Thread(target=lambda: pytest.raises(db_exception.DBConnectionError, step.execute, number=1))
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and len(pings) == 5 and step.runs == 1


def test_every_registered_flows_steps_wait_out_outages():
    from keyvrm.flows import registry

    res = resources(Database(0))
    for name, build in registry.FLOWS.items():
        store = {"cycle_id": 1, "aggregate": "a", "snapshot_id": 1, "recommendation_id": "r", "reason": "x"}
        for atom in build(res, **store).iter_nodes():
            step = atom[0]
            if hasattr(step, "execute"):
                assert isinstance(step, steps.FlowTask), "%s: %s is not a FlowTask" % (name, step.name)
