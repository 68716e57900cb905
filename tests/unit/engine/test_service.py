"""The engine's schedule: a MasterFlow per period on the grid, none while one runs, "cycle now" likewise."""

from oslo_config import cfg

from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.engine import leader
from keyvrm.engine import service


class Clock:
    def __init__(self, now_s):
        self.now_s = now_s

    def time(self):
        return self.now_s

    def sleep(self, seconds):
        self.now_s += seconds


class Dispatcher:
    def __init__(self, db):
        self.resources = type("Resources", (), {"db": db})()
        self.dispatched = []
        self.pending = set()

    def dispatch(self, name, store):
        self.dispatched.append(name)

    def has_pending(self, name):
        return name in self.pending


def engine_at(sqlite_db, clock):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    engine = service.Engine(conf, resources_factory=None, clock=clock)
    engine.dispatcher = Dispatcher(sqlite_db)
    engine.leader = leader.SoleLeader()
    return engine


def test_leader_posts_a_master_flow_once_per_period_on_the_grid(sqlite_db):
    db_api.update_app_config(sqlite_db, {"period": 60}, changed_by="test")
    clock = Clock(1000.0)
    engine = engine_at(sqlite_db, clock)
    for now_s in (1000.0, 1030.0, 1059.0, 1061.5, 1100.0, 1125.0):
        clock.now_s = now_s
        engine._tick()
    assert engine.dispatcher.dispatched == ["master", "master", "master"]  # 1000, 1061.5 (grid 1060), 1125 (1120)


def test_no_second_master_flow_while_one_runs_and_the_grid_moves_on(sqlite_db):
    db_api.update_app_config(sqlite_db, {"period": 60}, changed_by="test")
    clock = Clock(1000.0)
    engine = engine_at(sqlite_db, clock)
    engine.dispatcher.pending.add("master")
    engine._tick()
    assert engine.dispatcher.dispatched == []
    engine.dispatcher.pending.clear()
    clock.now_s = 1010.0
    engine._tick()
    assert engine.dispatcher.dispatched == []  # the skipped tick still counted: next at 1060
    clock.now_s = 1060.0
    engine._tick()
    assert engine.dispatcher.dispatched == ["master"]


def test_cycle_now_is_refused_while_a_master_flow_runs(sqlite_db):
    engine = engine_at(sqlite_db, Clock(0.0))
    engine.dispatcher.pending.add("master")
    assert engine.run_cycle_now() is False
    engine.dispatcher.pending.clear()
    assert engine.run_cycle_now() is True
    assert engine.dispatcher.dispatched == ["master"]
