"""The engine in one process on SQLite: graceful stop checkpoints a running flow; RPC casts start flows."""

import threading
import time

from oslo_config import cfg
import oslo_messaging
from taskflow.patterns import linear_flow
from taskflow import task

from keyvrm import clock
from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.engine import manager
from keyvrm.engine import persistence as engine_persistence
from keyvrm.engine import rpcapi
from keyvrm.engine import service
from keyvrm.flows import resources as flow_resources


class Gate(task.Task):
    """Waits for the test to open the gate; counts its runs."""

    def __init__(self, probe):
        super().__init__(name="gate")
        self._probe = probe

    def execute(self):
        self._probe.gate_runs += 1
        self._probe.gate_entered.set()
        assert self._probe.gate_open.wait(10)


class Record(task.Task):
    """Records the recommendation it ran for (``Probe.recorded``); a cycle only counts itself."""

    def __init__(self, probe, kind="record"):
        super().__init__(name=kind)
        self._probe = probe
        self._kind = kind

    def execute(self, recommendation_id=None):
        if self._kind == "cycle":
            self._probe.cycles += 1
            return
        self._probe.recorded.append(recommendation_id)
        self._probe.recorded_event.set()


class Probe:
    def __init__(self):
        self.gate_runs = 0
        self.gate_entered = threading.Event()
        self.gate_open = threading.Event()
        self.recorded = []
        self.recorded_event = threading.Event()
        self.cycles = 0

    def registry(self):
        return {
            "master": lambda resources, **store: linear_flow.Flow("master").add(Record(self, "cycle")),
            "gated": lambda resources, **store: linear_flow.Flow("gated").add(Gate(self), Record(self)),
            "executor": lambda resources, **store: linear_flow.Flow("executor").add(Record(self)),
        }


def make_conf(db_url, rpc_enabled=False):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    conf.set_override("connection", db_url, group="database")
    conf.set_override("rpc_enabled", rpc_enabled, group="engine")
    conf.set_override("conductor_name", "solo", group="engine")
    return conf


def make_engine(conf, db, probe, transport=None):
    def resources_factory(dispatcher):
        return flow_resources.EngineResources(db=db, cloud=None, clock=clock.WallClock(),
                                              dispatcher=dispatcher, fencers=lambda app: None)
    return service.Engine(conf, resources_factory, flows=probe.registry(), rpc_transport=transport)


def test_graceful_stop_lets_the_running_task_finish_and_the_next_start_resumes_after_it(sqlite_db):
    conf = make_conf(sqlite_db.url)
    probe = Probe()
    engine = make_engine(conf, sqlite_db, probe)
    engine.start()
    engine.dispatcher.dispatch("gated", {})
    assert probe.gate_entered.wait(10)
    stopper = threading.Thread(target=engine.stop)
    stopper.start()
    assert engine.dispatcher.stopping.wait(10)
    probe.gate_open.set()
    stopper.join(15)
    assert not stopper.is_alive()
    assert probe.gate_runs == 1 and probe.recorded == []  # suspended after the running task

    unfinished = engine_persistence.Persistence(sqlite_db.url).unfinished(engine_persistence.LOCAL)
    assert "gated" in [r.flow_name for r in unfinished]  # (a cycle running at the stop may be there too)

    restarted = make_engine(conf, sqlite_db, probe)
    restarted.start()
    assert restarted.resumed_count == len(unfinished)
    assert restarted.dispatcher.wait_idle(10)
    restarted.stop()
    assert probe.gate_runs == 1 and probe.recorded == [None]


def test_rpc_casts_start_the_executor_flows_of_queued_and_cancelled_recommendations(sqlite_db):
    conf = make_conf(sqlite_db.url, rpc_enabled=True)
    manager.register_global_only_opts(conf)
    transport = oslo_messaging.get_rpc_transport(conf, url="fake://")
    probe = Probe()
    engine = make_engine(conf, sqlite_db, probe, transport=transport)
    event_id = db_api.create_event(sqlite_db, "agg", "LB", "LB")
    to_run, to_cancel = (db_api.create_recommendation(sqlite_db, event_id, "live_migrate", vm, "h1", "h2",
                                                      auto_run=False) for vm in ("vm-1", "vm-2"))
    engine.start()
    try:
        api = rpcapi.EngineAPI(transport)
        db_api.request_recommendation_run(sqlite_db, to_run, "admin")
        api.run_recommendation({}, to_run)
        db_api.request_recommendation_cancel(sqlite_db, to_cancel, "admin")
        api.cancel_recommendation({}, to_cancel)
        wait_for = time.monotonic() + 10
        while len(probe.recorded) < 2 and time.monotonic() < wait_for:
            probe.recorded_event.wait(0.1)
        assert engine.dispatcher.wait_idle(10)
        assert sorted(probe.recorded) == sorted([to_run, to_cancel])
    finally:
        engine.stop()
        transport.cleanup()
