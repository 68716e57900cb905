"""A conductor hands a job back to the board (never consumes or trashes it) when the database went away."""

from oslo_db import exception as db_exception
import pytest
from taskflow.conductors.backends import impl_nonblocking
from taskflow import exceptions as taskflow_exc

from keyvrm.db import availability
from keyvrm.engine import conductor


class Persistence:
    backend = None

    def __init__(self):
        self.pings = 0

    def ping(self):
        self.pings += 1
        if self.pings < 3:
            raise db_exception.DBConnectionError("connection refused")


class Job:
    uuid = "job-1"


@pytest.fixture
def flow_conductor(monkeypatch):
    monkeypatch.setattr(availability.time, "sleep", lambda s: None)
    monkeypatch.setattr(impl_nonblocking.NonBlockingConductor, "__init__", lambda self, *a, **kw: None)
    made = conductor.FlowConductor.__new__(conductor.FlowConductor)
    made._keyvrm_persistence = Persistence()
    made._wait_timeout = type("Timeout", (), {"is_stopped": lambda self: False})()
    return made


def test_a_job_whose_flow_cannot_be_loaded_for_an_outage_is_handed_back_once_the_database_answers(
        flow_conductor, monkeypatch):
    def load_fails(self, job):
        raise db_exception.DBConnectionError("server closed the connection unexpectedly")

    monkeypatch.setattr(impl_nonblocking.NonBlockingConductor, "_dispatch_job", load_fails)
    assert flow_conductor._dispatch_job(Job()) is False  # not consumed: abandoned, not trashed
    assert flow_conductor._keyvrm_persistence.pings == 3


def test_any_other_loading_error_is_raised(flow_conductor, monkeypatch):
    def load_fails(self, job):
        raise LookupError("its flow is no longer persisted")

    monkeypatch.setattr(impl_nonblocking.NonBlockingConductor, "_dispatch_job", load_fails)
    with pytest.raises(LookupError):
        flow_conductor._dispatch_job(Job())


def test_a_run_that_lost_the_database_fails_as_storage_so_the_job_is_not_consumed(flow_conductor, monkeypatch):
    class Engine:
        def run_iter(self):
            yield "RUNNING"
            raise db_exception.DBConnectionError("server closed the connection unexpectedly")

    monkeypatch.setattr(conductor.dispatch, "load_engine", lambda *args: Engine())
    flow_conductor._keyvrm_persistence.find = lambda uuid: object()
    flow_conductor._flows, flow_conductor._records = {}, {}
    flow_conductor._resources_provider = lambda: None
    job = type("Job", (), {"uuid": "job-2", "book": type("Book", (), {"uuid": "b"})()})()
    engine = flow_conductor._engine_from_job(job)
    with pytest.raises(taskflow_exc.StorageFailure):
        list(engine.run_iter())
    assert taskflow_exc.StorageFailure in impl_nonblocking.NonBlockingConductor.NO_CONSUME_EXCEPTIONS
