"""Flows in turn on a driven clock: one runs at a time, handed on by wake time, the same order every run."""

import threading

from keyvrm.simulator import baton as baton_mod
from keyvrm.simulator import region as r
from keyvrm.simulator import simclock


def _flows(waits_by_flow):
    """Run one thread per flow, each sleeping its waits; the (simulated second, flow) of every wake."""
    region = r.Region(r.RegionOptions())
    baton = baton_mod.Baton(region)
    clock = simclock.SimTimeClock(region, driven=True, baton=baton)
    seen, tokens = [], [baton.admit() for _ in waits_by_flow]

    def flow(name, token, waits):
        baton.enter(token)
        try:
            for seconds in waits:
                clock.sleep(seconds)
                seen.append((round(region.clock.elapsed_s, 3), name))
        finally:
            baton.leave()
    threads = [threading.Thread(target=flow, args=(name, token, waits))
               for (name, waits), token in zip(waits_by_flow.items(), tokens)]
    for thread in reversed(threads):  # started in the opposite order: the baton, not the OS, decides
        thread.start()
    for thread in threads:
        thread.join(10)
    return seen


def test_flows_wake_in_simulated_time_order_and_ties_in_the_order_they_began_waiting():
    seen = _flows({"a": [5, 5, 5], "b": [10, 1], "c": [5]})
    assert seen == [(5, "a"), (5, "c"), (10, "b"), (10, "a"), (11, "b"), (15, "a")]  # b began waiting at 0


def test_the_same_flows_give_the_same_sequence_every_time():
    runs = {tuple(_flows({"a": [2, 3, 2], "b": [3, 2, 2], "c": [1, 1, 5]})) for _ in range(20)}
    assert len(runs) == 1


def test_runs_started_side_by_side_take_turns_while_their_flow_waits():
    region = r.Region(r.RegionOptions())
    baton = baton_mod.Baton(region)
    clock = simclock.SimTimeClock(region, driven=True, baton=baton)
    seen = []

    def run(name, seconds):
        def call():
            clock.sleep(seconds)
            seen.append((region.clock.elapsed_s, name))
            return name
        return call

    def flow(token):
        baton.enter(token)
        try:
            seen.append(("results", clock.side_by_side([run("x", 7), run("y", 3)], workers=2)))
            seen.append((region.clock.elapsed_s, "flow"))
        finally:
            baton.leave()
    thread = threading.Thread(target=flow, args=(baton.admit(),))
    thread.start()
    thread.join(10)
    assert seen == [(3, "y"), (7, "x"), ("results", ["x", "y"]), (7, "flow")]
