"""The engine through a PostgreSQL outage: nothing orphaned, nothing done twice, with or without a restart.

The region is the simulated one (a host dies in an HA aggregate, one overloads in an LB
aggregate with auto-run), the database a private PostgreSQL cluster the test stops for
``OUTAGE_S`` at one point of the work -- right after Nova accepted an evacuation or a
live migration (the journal write that follows fails), or as an HA or harvest step
begins -- and starts again. The machine's PostgreSQL server is never touched.
"""

import collections
import logging
import threading
import uuid

import pytest
from taskflow.listeners import base as listener_base
from taskflow import states

from keyvrm.db import api as db_api
from keyvrm.demo import embedded
from keyvrm.engine import dispatch
from keyvrm.engine import persistence as engine_persistence
from keyvrm.engine import sweep
from keyvrm.model import states as model_states
from tests.unit.flows import regions

OUTAGE_S = 10.0
DEAD = "cmp-00001"
CPU_LB = dict(regions.CPU_LB, marker="LB", lb_period=60)


class Outage:
    """Stops the private cluster once, at the first ``trigger()``, and starts it ``OUTAGE_S`` later."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.began = threading.Event()
        self.ended = threading.Event()
        self._lock = threading.Lock()

    def trigger(self, start_again=True):
        with self._lock:
            if self.began.is_set():
                return
            self.cluster.stop("fast")
            self.began.set()
        if start_again:
            threading.Timer(OUTAGE_S, self.end).start()

    def end(self):
        self.cluster.start()
        self.ended.set()


class OutageAtStep(listener_base.Listener):
    def __init__(self, engine, outage, task_name):
        super().__init__(engine, task_listen_for=(states.RUNNING,), flow_listen_for=())
        self._outage, self._task_name = outage, task_name

    def _task_receiver(self, state, details):
        if details["task_name"] == self._task_name:
            self._outage.trigger()


def counting_cloud_calls(cloud, outage, at_call):
    """Count evacuations and live migrations per VM; the outage begins right after the first ``at_call``."""
    calls = collections.Counter()
    for action in ("evacuate", "live_migrate"):
        original = getattr(cloud, action)

        def call(server_id, target_host, *args, _original=original, _action=action, **kwargs):
            result = _original(server_id, target_host, *args, **kwargs)
            calls[(_action, server_id)] += 1
            if _action == at_call:
                outage.trigger()
            return result
        setattr(cloud, action, call)
    return calls


class Region:
    """The embedded simulated region on the private cluster, with the dispatcher the test controls."""

    def __init__(self, cluster, outage, step=None, at_call=None):
        url = cluster.create_database("keyvrm_%s" % uuid.uuid4().hex[:8])
        self.emb = embedded.EmbeddedRegion(
            regions.small_region(regions.dies(DEAD) + regions.overloads("cmp-00005")), url)
        self.emb.sync_aggregates()
        ha = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
        self.emb.configure(app={"enabled": True, "lb_recommendations_auto_run": True},
                           aggregates={regions.HA_AGG: ha, regions.LB_AGG: CPU_LB})
        self.dead_vms = sorted(vm.id for vm in self.emb.region.hosts[DEAD].vms)
        self.calls = counting_cloud_calls(self.emb.drivers.cloud, outage, at_call)
        self.listeners = [lambda engine, record: OutageAtStep(engine, outage, step)] if step else []
        self.start_dispatcher()

    def start_dispatcher(self):
        self.persistence = engine_persistence.Persistence(self.emb.db.url)
        self.persistence.upgrade()
        self.dispatcher = dispatch.LocalDispatcher(self.emb.resources, self.persistence,
                                                   listener_factories=self.listeners)
        self.emb.dispatcher = self.dispatcher
        return self.dispatcher.resume_unfinished()

    def stop_dispatcher(self):
        self.dispatcher.stop()
        self.persistence.close()

    def run_cycles(self, count, timeout_s=240.0):
        for _ in range(count):
            assert self.emb.run_cycle(timeout_s), "the cycle's flows did not finish in %s s" % timeout_s
            self.emb.advance(60.0)


def _ended_by_the_outage(cycle):
    return cycle["status"] == "failed" and cycle["reason_code"] == "flow_failed" and any(
        sign in (cycle["reason"] or "") for sign in ("connection", "server closed"))


def assert_nothing_orphaned_nothing_twice(region):
    db = region.emb.db
    assert region.persistence.unfinished(engine_persistence.LOCAL) == []
    cycles = db_api.page_cycles(db, 1000)
    # A MasterFlow whose own TaskFlow bookkeeping failed as the database went away (a step's
    # post-completion save) is reverted: its cycle is recorded failed with the database's
    # error and the next cycle does its work. That is an honest record, not lost work; any
    # other unfinished or failed cycle is.
    assert not [c for c in cycles if c["status"] not in ("completed", "skipped")
                and not _ended_by_the_outage(c)], cycles
    assert max(cycles, key=lambda c: c["id"])["status"] == "completed", cycles
    events = db_api.list_events(db)
    assert {e["status"] for e in events} == {"completed"}, [e for e in events if e["status"] != "completed"]
    recs = db_api.list_recommendations(db)
    assert {r["status"] for r in recs} <= set(model_states.RECOMMENDATION_FINAL)
    assert db_api.list_locked_vms(db, db_api.utcnow()) == []
    evacuations = [r for r in recs if r["action"] == "evacuate"]
    assert sorted(r["vm_id"] for r in evacuations) == region.dead_vms
    assert {r["status"] for r in evacuations} == {"succeeded"}
    assert all(region.calls[("evacuate", vm)] == 1 for vm in region.dead_vms), region.calls
    assert all(region.emb.region.vms[vm].host != DEAD for vm in region.dead_vms)
    assert db_api.get_hypervisor_state(db, DEAD)["state"] == "maintenance"
    moves = collections.Counter(r["vm_id"] for r in recs if r["action"] == "live_migrate")
    assert moves, "LB moved nothing"
    assert all(region.calls[("live_migrate", vm)] <= count for vm, count in moves.items()), region.calls


@pytest.mark.parametrize("step,at_call", [
    (None, "evacuate"), (None, "live_migrate"), ("ha_plan_round1", None), ("harvest", None)],
    ids=["after-nova-accepted-an-evacuation", "after-nova-accepted-a-live-migration",
         "as-ha-plans", "as-a-harvest-begins"])
def test_engine_waits_out_an_outage_and_finishes_every_piece_of_work_once(private_pg, step, at_call, caplog):
    caplog.set_level(logging.INFO)
    outage = Outage(private_pg)
    region = Region(private_pg, outage, step=step, at_call=at_call)
    try:
        region.run_cycles(6)
        assert outage.began.is_set() and outage.ended.is_set()
        assert_nothing_orphaned_nothing_twice(region)
        waited = [r for r in caplog.records if "database unavailable" in r.getMessage()]
        assert waited and all(r.exc_info is None for r in waited)
        assert len(waited) < 20  # a line per waiting step, not one per retry
    finally:
        region.stop_dispatcher()
        region.emb.db.dispose()


def test_an_engine_stopped_during_an_outage_resumes_its_flows_at_the_next_start(private_pg):
    outage = Outage(private_pg)
    region = Region(private_pg, outage, at_call="evacuate")
    outage.trigger = lambda _trigger=outage.trigger: _trigger(start_again=False)

    def cycles_until_the_stop():
        try:
            region.run_cycles(6)
        except Exception:  # the stop below cuts them short, as SIGTERM does an engine's
            pass

    cycles = threading.Thread(target=cycles_until_the_stop, daemon=True)
    try:
        cycles.start()
        assert outage.began.wait(120), "no evacuation was asked for"
        region.stop_dispatcher()  # the waiting steps give up: their flows stay persisted, unfinished
        cycles.join(60)
        outage.end()
        assert region.start_dispatcher() >= 1  # the HA flow, resumed from the database
        assert region.dispatcher.wait_idle(240)
        swept = sweep.sweep(region.emb.resources(region.dispatcher), region.persistence, region.dispatcher,
                            grace_s=0.0)
        assert swept.count == 0, swept.describe()  # the resumed flows finished everything themselves
        region.run_cycles(4)
        assert_nothing_orphaned_nothing_twice(region)
    finally:
        region.stop_dispatcher()
        region.emb.db.dispose()
