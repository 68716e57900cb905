"""SimTimeClock: waits pass in simulated time; concurrent waits never move time back."""

import threading

from keyvrm.simulator import region as r
from keyvrm.simulator import simclock


def test_sleep_advances_the_region_and_runs_what_falls_due():
    region = r.Region()
    clock = simclock.SimTimeClock(region)
    fired = []
    region.clock.call_later(30, fired.append, "due")
    start = clock.time()
    clock.sleep(45)
    assert clock.time() == start + 45 and fired == ["due"]
    clock.sleep(0)
    assert clock.time() == start + 45


def test_concurrent_sleeps_each_see_their_time_pass_and_time_never_goes_back():
    region = r.Region()
    clock = simclock.SimTimeClock(region)
    start = clock.time()
    seen = []
    barrier = threading.Barrier(4)

    def sleeper(seconds):
        barrier.wait()
        before = clock.time()
        clock.sleep(seconds)
        seen.append((seconds, before, clock.time()))

    threads = [threading.Thread(target=sleeper, args=(s,)) for s in (5, 10, 5, 10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(after - before >= seconds for seconds, before, after in seen)
    assert start + 10 <= clock.time() <= start + 30


def test_a_runner_driven_clock_waits_for_the_runner():
    region = r.Region()
    clock = simclock.SimTimeClock(region, driven=False)
    start = clock.time()
    mover = threading.Timer(0.05, lambda: region.clock.advance(60))
    mover.start()
    clock.sleep(30)
    mover.join()
    assert clock.time() == start + 60


def test_a_waiter_on_a_runner_driven_clock_moves_it_itself_once_the_runner_stops():
    region = r.Region()
    clock = simclock.SimTimeClock(region, driven=False)
    start = clock.time()
    waiter = threading.Thread(target=clock.sleep, args=(30,))
    waiter.start()
    waiter.join(0.1)
    assert waiter.is_alive() and clock.time() == start
    clock.driven = True  # the runner stopped (the demo's end)
    waiter.join(5)
    assert not waiter.is_alive() and clock.time() == start + 30


def test_a_pause_on_a_runner_driven_clock_lasts_in_simulated_time_and_ends_early_when_stopped():
    region = r.Region()
    clock = simclock.SimTimeClock(region, driven=False)
    start = clock.time()
    mover = threading.Timer(0.05, lambda: region.clock.advance(2))
    mover.start()
    assert clock.pause(threading.Event(), 2.0) is False
    mover.join()
    assert clock.time() == start + 2
    stop = threading.Event()
    threading.Timer(0.05, stop.set).start()
    assert clock.pause(stop, 3600.0) is True and clock.time() == start + 2


def test_asleep_counts_the_threads_waiting_for_the_runner():
    region = r.Region()
    clock = simclock.SimTimeClock(region, driven=False)
    waiters = [threading.Thread(target=clock.sleep, args=(30,)) for _ in range(2)]
    for waiter in waiters:
        waiter.start()
    for _ in range(200):
        if clock.asleep == 2:
            break
        threading.Event().wait(0.01)
    assert clock.asleep == 2
    region.clock.advance(30)
    for waiter in waiters:
        waiter.join(5)
    assert clock.asleep == 0


def test_runs_side_by_side_count_as_working_in_place_of_the_flow_that_waits_for_them():
    region = r.Region()
    clock = simclock.SimTimeClock(region, driven=False)
    both_running = threading.Barrier(2)
    seen = []

    def run():
        both_running.wait(5)
        seen.append(clock.side_working)  # two working, their caller waiting: one more than the caller
        both_running.wait(5)
        return "done"

    assert clock.side_by_side([run, run], 2) == ["done", "done"]
    assert seen == [1, 1] and clock.side_working == 0
