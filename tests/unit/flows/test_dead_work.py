"""Work of other runs on a host HA just fenced is ended before its VMs are planned (issue 32: never "busy")."""

import logging

from keyvrm.db import api as db_api
from keyvrm.executor.settings import ExecutorSettings
from keyvrm.flows import context
from keyvrm.flows import dead_work
from keyvrm.flows import ha
from keyvrm.model import states
from tests.unit.executor import helpers as h

SETTINGS = ExecutorSettings(poll_interval_s=2.0, retry_delay_s=10.0, tier_wait_s=60.0)
DEAD = "cmp-9"


def _rec(db, event_id, vm_id, source, target, status=None, action="live_migrate"):
    manual = status == states.RecommendationStatus.MANUAL_ACTION
    rec_id = db_api.create_recommendation(db, event_id, action, vm_id, source, target, auto_run=not manual,
                                          ha_round=1 if action == "evacuate" else None)
    if status is not None and not manual:
        db_api.set_recommendation_status(db, rec_id, status)
    return rec_id


def _events(db):
    return (db_api.create_event(db, "agg-a", "HA", "HA"), db_api.create_event(db, "agg-a", "LB", "LB"),
            db_api.create_event(db, "agg-a", "HA", "HA"))


def test_work_not_started_on_the_dead_host_is_cancelled_and_round_2_counts_a_lost_target(sqlite_db):
    own, lb, other_ha = _events(sqlite_db)
    to_dead = _rec(sqlite_db, other_ha, "vm-1", "cmp-1", DEAD, action="evacuate")
    manual_off = _rec(sqlite_db, lb, "vm-2", DEAD, "cmp-2", status=states.RecommendationStatus.MANUAL_ACTION)
    elsewhere = _rec(sqlite_db, lb, "vm-3", "cmp-1", "cmp-2")
    mine = _rec(sqlite_db, own, "vm-4", DEAD, "cmp-2", action="evacuate")
    settled = dead_work.settle(sqlite_db, h.StepClock(), [DEAD], own, "agg-a", SETTINGS)
    assert sorted(settled.cancelled) == sorted([to_dead, manual_off]) and settled.found_any
    lost = db_api.get_recommendation(sqlite_db, to_dead)
    assert lost["reason"] == "target %s failed: HA event %s fenced it" % (DEAD, own) and ha._target_lost(lost)
    assert db_api.get_recommendation(sqlite_db, manual_off)["reason"].startswith("source %s failed" % DEAD)
    assert [db_api.get_recommendation(sqlite_db, r)["status"] for r in (elsewhere, mine)] == ["created", "created"]
    assert h.kinds(sqlite_db, to_dead) == ["cancel"]


class _EndsAfter:
    """A clock whose ``polls``-th sleep ends a run (its executor saw the fenced host at its next poll)."""

    def __init__(self, db, rec_id, polls):
        self.clock, self.db, self.rec_id, self.polls = h.StepClock(), db, rec_id, polls

    def time(self):
        return self.clock.time()

    def sleep(self, seconds):
        self.clock.sleep(seconds)
        self.polls -= 1
        if self.polls == 0:
            db_api.set_recommendation_status(self.db, self.rec_id, states.RecommendationStatus.FAILED, "target_down")


def test_running_work_on_the_dead_host_is_waited_for_until_it_ends(sqlite_db):
    own, lb, _ = _events(sqlite_db)
    running = _rec(sqlite_db, lb, "vm-1", "cmp-1", DEAD, status=states.RecommendationStatus.RUNNING)
    clock = _EndsAfter(sqlite_db, running, polls=2)
    settled = dead_work.settle(sqlite_db, clock, [DEAD], own, "agg-a", SETTINGS)
    assert settled == dead_work.Settled(ended=(running,))
    assert clock.time() - 1000.0 == 2 * SETTINGS.poll_interval_s


def test_running_work_that_does_not_end_is_waited_for_one_tier_wait_retry_delay_and_two_polls(sqlite_db):
    own, lb, _ = _events(sqlite_db)
    running = _rec(sqlite_db, lb, "vm-1", DEAD, "cmp-2", status=states.RecommendationStatus.RUNNING)
    clock = h.StepClock()
    settled = dead_work.settle(sqlite_db, clock, [DEAD], own, "agg-a", SETTINGS)
    assert settled == dead_work.Settled(running=(running,))
    assert clock.time() - 1000.0 == dead_work.wait_bound_s(SETTINGS) == 74.0


def test_a_dead_host_still_busy_after_the_wait_is_a_warning_in_the_log(sqlite_db, caplog):
    own, lb, _ = _events(sqlite_db)
    _rec(sqlite_db, lb, "vm-1", DEAD, "cmp-2", status=states.RecommendationStatus.RUNNING)
    with caplog.at_level(logging.WARNING, logger=dead_work.__name__):
        dead_work.settle(sqlite_db, h.StepClock(), [DEAD], own, "agg-a", SETTINGS)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(
        logging.WARNING, "hosts %s: 1 recommendations of other runs still run on them or in aggregate agg-a after 74 s;"
                         " their VMs and targets stay out of this plan" % DEAD)]


def test_another_runs_evacuation_in_the_aggregate_is_waited_for_its_target_may_be_the_last_one(sqlite_db):
    own, _, other_ha = _events(sqlite_db)
    elsewhere = db_api.create_event(sqlite_db, "agg-b", "HA", "HA")
    evacuating = _rec(sqlite_db, other_ha, "vm-1", "cmp-1", "cmp-2", status=states.RecommendationStatus.RUNNING,
                      action="evacuate")
    _rec(sqlite_db, elsewhere, "vm-2", "cmp-5", "cmp-6", status=states.RecommendationStatus.RUNNING, action="evacuate")
    clock = _EndsAfter(sqlite_db, evacuating, polls=1)
    assert dead_work.settle(sqlite_db, clock, [DEAD], own, "agg-a", SETTINGS) == dead_work.Settled(ended=(evacuating,))


def test_nothing_on_the_host_nor_evacuations_in_the_aggregate_means_no_wait(sqlite_db):
    own, lb, _ = _events(sqlite_db)
    _rec(sqlite_db, lb, "vm-1", "cmp-1", "cmp-2", status=states.RecommendationStatus.RUNNING)
    clock = h.StepClock()
    assert not dead_work.settle(sqlite_db, clock, [DEAD], own, "agg-a", SETTINGS).found_any
    assert clock.time() == 1000.0


def test_a_host_receiving_another_runs_evacuations_may_receive_this_runs_but_not_one_in_other_work(sqlite_db):
    own, lb, other_ha = _events(sqlite_db)
    _rec(sqlite_db, other_ha, "vm-1", "cmp-1", "last-live", status=states.RecommendationStatus.RUNNING,
         action="evacuate")
    _rec(sqlite_db, lb, "vm-2", "cmp-3", "lb-target")
    _rec(sqlite_db, own, "vm-3", DEAD, "mine", action="evacuate")
    busy = context.busy_for_evacuation(sqlite_db, own)
    assert busy.hosts == frozenset({"cmp-1", "cmp-3", "lb-target"}) and busy.vms == frozenset({"vm-1", "vm-2"})
