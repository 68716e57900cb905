"""Migrations in flight: a place per migration, at most max_concurrent_per_host per target and per_region in all."""

import threading

from keyvrm import clock as clocks
from keyvrm.executor import inflight
from tests.unit.executor.helpers import StepClock


def test_a_run_past_the_per_host_bound_waits_until_a_migration_to_that_host_ends():
    places = inflight.InFlight()
    wall = clocks.WallClock()
    assert places.take("cmp-2", wall, per_host=1, per_region=0, deadline_s=wall.time() + 30) == inflight.Room()
    assert places.take("cmp-3", wall, per_host=1, per_region=0, deadline_s=wall.time() + 30).bound is None
    got = []
    waiter = threading.Thread(target=lambda: got.append(
        places.take("cmp-2", wall, per_host=1, per_region=0, deadline_s=wall.time() + 30)))
    waiter.start()
    waiter.join(0.3)
    assert got == [] and places.to_host("cmp-2") == 1
    places.give_back("cmp-2")
    waiter.join(5)
    assert got[0].bound == inflight.PER_HOST and got[0].in_flight == 1
    assert places.to_host("cmp-2") == 1 and places.total == 2
    assert "1 migrations in flight to cmp-2 ([executor] max_concurrent_per_host = 1)" in got[0].message("cmp-2", 1)


def test_the_region_bound_counts_every_target():
    places = inflight.InFlight()
    clock = StepClock()
    for target in ("a", "b"):
        places.take(target, clock, per_host=10, per_region=2, deadline_s=clock.now + 60)
    assert places.take("c", clock, per_host=10, per_region=2, deadline_s=clock.now + 60) is None
    assert places.total == 2  # the run that gave up at its deadline took no place
    places.give_back("a")
    assert places.take("c", clock, per_host=10, per_region=2, deadline_s=clock.now + 60) == inflight.Room()
    assert places.take("d", clock, per_host=10, per_region=0, deadline_s=clock.now) == inflight.Room()  # 0: no bound


def test_an_adopted_migration_counts_without_waiting():
    places = inflight.InFlight()
    places.adopt("cmp-2")
    places.adopt("cmp-2")  # found after a restart: already running, whatever the bound
    assert places.to_host("cmp-2") == 2
    places.give_back("cmp-2")
    places.give_back("cmp-2")
    assert places.to_host("cmp-2") == 0 and places.total == 0
