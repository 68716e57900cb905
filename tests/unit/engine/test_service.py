"""The engine: a MasterFlow per period on the grid, none while one runs, "cycle now" likewise; the fast path;
the leader's housekeeping on its own thread, beside the liveness and leadership beat."""

import datetime
import threading
import time

from oslo_config import cfg
import pytest
from taskflow.patterns import linear_flow

from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.engine import housekeeping
from keyvrm.engine import leader
from keyvrm.engine import service
from keyvrm.engine import sweep
from keyvrm.flows.resources import FlowSettings
from keyvrm.model.snapshot import ComputeService


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
        self.stores = []
        self.pending = set()

    def dispatch(self, name, store):
        self.dispatched.append(name)
        self.stores.append(store)

    def has_pending(self, name):
        return name in self.pending


class NoFlows:
    """Persistence with no unfinished flow (the sweep finds nothing live)."""

    def unfinished(self, mode):
        return []


def engine_at(sqlite_db, clock):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    engine = service.Engine(conf, resources_factory=None, clock=clock)
    engine.dispatcher = Dispatcher(sqlite_db)
    engine.leader = leader.SoleLeader()
    engine.persistence = NoFlows()
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


def test_cycle_now_refused_while_a_master_flow_runs_starts_when_it_ends_not_at_the_next_period(sqlite_db):
    db_api.update_app_config(sqlite_db, {"period": 86400}, changed_by="test")
    clock = Clock(1000.0)
    engine = engine_at(sqlite_db, clock)
    engine._tick()  # the period's cycle
    engine.dispatcher.pending.add("master")
    assert engine.run_cycle_now() is False
    clock.now_s = 1001.0
    engine._tick()
    assert engine.dispatcher.dispatched == ["master"]  # still running: nothing more
    engine.dispatcher.pending.clear()
    clock.now_s = 1002.0
    engine._tick()
    assert engine.dispatcher.dispatched == ["master", "master"]  # the owed cycle, a day before the period
    engine._tick()
    assert engine.dispatcher.dispatched == ["master", "master"]  # owed once only


class Services:
    """Compute services and heartbeats a test turns bad (the two signals the fast path watches)."""

    def __init__(self, hosts, clock):
        self.clock = clock
        self.down = set()
        self.beats = {host: clock.now_s for host in hosts}
        self.reads = 0

    def list_compute_services(self):
        self.reads += 1
        return [ComputeService(host, state="down" if host in self.down else "up") for host in self.beats]

    def last_heartbeats(self):
        return dict(self.beats)


def fast_engine(sqlite_db, clock, hosts=("h1", "h2")):
    engine = engine_at(sqlite_db, clock)
    services = Services(hosts, clock)
    engine.dispatcher.resources = type("Resources", (), {
        "db": sqlite_db, "cloud": services, "heartbeat": services,
        "conf": FlowSettings(heartbeat_stale_after_s=30.0)})()
    return engine, services


def test_fast_path_judges_a_host_whose_compute_service_goes_down_at_once_and_once_only(sqlite_db):
    clock = Clock(1000.0)
    engine, services = fast_engine(sqlite_db, clock)
    assert engine.watch_once() is False  # the first look learns the states
    services.down.add("h1")
    assert engine.watch_once() is True
    assert engine.dispatcher.dispatched == ["fast"]
    assert engine.dispatcher.stores[-1] == {"hosts": ["h1"]}
    engine.dispatcher.pending.add("fast")
    assert engine.watch_once() is False  # still down: not again; the region's cycle waits for the fast one
    engine.dispatcher.pending.clear()
    assert engine.watch_once() is True  # then the whole region catches up, once
    assert engine.watch_once() is False
    assert engine.dispatcher.dispatched == ["fast", "master"]


def test_fast_path_starts_a_cycle_when_a_heartbeat_goes_stale(sqlite_db):
    clock = Clock(1000.0)
    engine, services = fast_engine(sqlite_db, clock)
    engine.watch_once()
    clock.now_s = 1020.0
    services.beats["h1"] = 1020.0
    assert engine.watch_once() is False  # h2 is 20 s old: fresh
    clock.now_s = 1031.0
    assert engine.watch_once() is True  # h2 is 31 s old: stale


def test_a_failure_seen_while_a_master_flow_runs_is_judged_at_once_and_the_next_cycle_waits(sqlite_db):
    clock = Clock(1000.0)
    engine, services = fast_engine(sqlite_db, clock)
    engine.watch_once()
    engine.dispatcher.pending.add("master")
    services.down.add("h2")
    assert engine.watch_once() is True
    assert engine.dispatcher.dispatched == ["fast"]
    assert engine.watch_once() is False  # the periodic cycle still runs
    engine.dispatcher.pending.clear()
    assert engine.watch_once() is True
    assert engine.dispatcher.dispatched == ["fast", "master"]


def test_fast_path_is_the_leaders_only(sqlite_db):
    clock = Clock(1000.0)
    engine, services = fast_engine(sqlite_db, clock)
    engine.leader = type("Follower", (), {"is_leader": False})()
    engine.watch_once()
    services.down.add("h1")
    assert engine.watch_once() is False and services.reads == 0


def test_the_leader_purges_history_past_the_keep_days_once_an_hour(sqlite_db, monkeypatch):
    calls = []
    monkeypatch.setattr(db_api, "purge_history", lambda db, before, max_rows: calls.append(before) or [])
    clock = Clock(1_800_000_000.0)
    engine = engine_at(sqlite_db, clock)
    engine.housekeep_once()
    engine.housekeep_once()
    assert len(calls) == 1
    assert (clock.now_s - calls[0].replace(tzinfo=datetime.timezone.utc).timestamp()) == 90 * 86400.0
    clock.now_s += housekeeping.PURGE_INTERVAL_S  # an hour of the engine's clock, not of the wall
    engine.housekeep_once()
    assert len(calls) == 2


def test_the_leader_sweeps_when_it_begins_to_lead_then_every_sweep_interval_of_its_clock(sqlite_db, monkeypatch):
    swept_at = []
    clock = Clock(1_800_000_000.0)
    monkeypatch.setattr(sweep, "sweep", lambda res, persistence, dispatcher: swept_at.append(clock.now_s)
                        or sweep.Swept())
    engine = engine_at(sqlite_db, clock)
    for seconds in (0.0, 1.0, sweep.SWEEP_INTERVAL_S - 1.0, sweep.SWEEP_INTERVAL_S, 2 * sweep.SWEEP_INTERVAL_S):
        clock.now_s = 1_800_000_000.0 + seconds
        engine.housekeep_once()
    assert [at - 1_800_000_000.0 for at in swept_at] == [0.0, sweep.SWEEP_INTERVAL_S, 2 * sweep.SWEEP_INTERVAL_S]


def test_a_clock_set_back_does_not_hold_the_next_sweep_off_for_the_difference(sqlite_db, monkeypatch):
    swept_at = []
    clock = Clock(1_800_000_000.0)
    monkeypatch.setattr(sweep, "sweep", lambda res, persistence, dispatcher: swept_at.append(clock.now_s)
                        or sweep.Swept())
    engine = engine_at(sqlite_db, clock)
    engine.housekeep_once()
    clock.now_s -= 3600.0  # the wall clock corrected an hour back
    engine.housekeep_once()
    assert len(swept_at) == 2


def test_a_purge_stops_between_two_committed_batches_once_told_to(sqlite_db, monkeypatch):
    leading = threading.Event()
    leading.set()

    def batches(db, before, max_rows):
        yield "operations", max_rows
        leading.clear()  # the engine stops, or loses its lock, while this batch commits
        yield "events", max_rows
        pytest.fail("a batch after the stop")
    monkeypatch.setattr(db_api, "purge_history", batches)
    monkeypatch.setattr(sweep, "sweep", lambda res, persistence, dispatcher: sweep.Swept())
    keeping = housekeeping.Housekeeping(Clock(1_800_000_000.0), keep_days=90, max_rows=10,
                                        keep_going=leading.is_set)
    done = keeping.run(Dispatcher(sqlite_db), NoFlows(), first=True)
    assert done.purge_batches == 2
    assert (done.purged["operations"], done.purged["events"]) == (10, 10)


def test_the_liveness_and_leadership_beat_goes_on_while_a_purge_runs(tmp_path, monkeypatch):
    beats, purging, release = [], threading.Event(), threading.Event()

    class CountingLeader(leader.SoleLeader):
        def tick(self):
            beats.append(time.monotonic())
            return True

    def long_purge(db, before, max_rows):
        purging.set()
        release.wait(30)
        return iter(())
    monkeypatch.setattr(leader, "SoleLeader", CountingLeader)
    monkeypatch.setattr(db_api, "purge_history", long_purge)
    monkeypatch.setattr(sweep, "sweep", lambda res, persistence, dispatcher: sweep.Swept())
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm")
    url = "sqlite:///%s/keyvrm.sqlite" % tmp_path
    conf.set_override("connection", url, group="database")
    conf.set_override("leader_lock_ttl", 2, group="engine")  # a beat every 2/3 s
    conf.set_override("rpc_enabled", False, group="engine")
    conf.set_override("fast_path", False, group="ha")
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    engine = service.Engine(conf, lambda dispatcher: type("Resources", (), {"db": db})(),
                            flows={"master": lambda resources, **store: linear_flow.Flow("master")})
    engine.start()
    try:
        assert purging.wait(10)
        since = time.monotonic()
        time.sleep(4.0)  # ~6 beats due; a CI machine running seven suites on 2 cores gave 2 in 2.5 s
        assert len([at for at in beats if at >= since]) >= 3  # beaten on, the purge still running
    finally:
        release.set()
        engine.stop()
        db.dispose()
