"""Evacuation tiers: a tier opens once the tier before it is accepted or ended, or after tier_wait."""

import threading

from keyvrm import clock as clocks
from keyvrm.executor import order
from tests.unit.executor.helpers import StepClock


def test_tiers_follow_evacuate_order_lower_first_and_vms_without_one_come_last():
    orders = {"a": 2, "b": None, "c": 1, "d": 2, "e": 1}
    assert order.tiers_by_order(["a", "b", "c", "d", "e", "f"], orders) == [["c", "e"], ["a", "d"], ["b", "f"]]
    assert order.tiers_by_order(["x", "y"], {}) == [["x", "y"]]


def test_a_tier_opens_only_once_every_run_of_the_tier_before_is_accepted_or_ended():
    clock = StepClock()
    gate = order.TierGate([["a1", "a2"], ["b"], ["c"]], clock, tier_wait_s=60)
    assert gate.is_open("a1") and gate.is_open("a2") and not gate.is_open("b")
    gate.accepted("a1")
    assert not gate.is_open("b")
    gate.ended("a2")  # refused for good, cancelled: it will never be accepted
    assert gate.is_open("b") and not gate.is_open("c")
    gate.accepted("b")
    gate.ended("b")  # idempotent
    assert gate.is_open("c")
    assert gate.is_open("not-in-a-tier")


def test_a_run_waiting_on_the_wall_clock_goes_as_soon_as_the_tier_before_is_accepted():
    gate = order.TierGate([["a"], ["b"]], clocks.WallClock(), tier_wait_s=30)
    asked = []

    def run_b():
        gate.wait_turn("b", clocks.WallClock())
        asked.append("b")
    thread = threading.Thread(target=run_b)
    thread.start()
    thread.join(0.3)
    assert asked == []
    asked.append("a")
    gate.accepted("a")
    thread.join(5)
    assert asked == ["a", "b"]


def test_a_stuck_tier_delays_the_next_by_tier_wait_and_never_blocks_it():
    clock = StepClock()
    gate = order.TierGate([["stuck"], ["b1", "b2"], ["c"]], clock, tier_wait_s=60)
    start = clock.now
    waited = gate.wait_turn("b1", clock)
    assert clock.now - start == 60 and waited.by_bound and waited.tier == 2
    assert "[executor] tier_wait (60 s) passed" in waited.message(60)
    # tier 3 waits for tier 2 (accepted in time), not a second bound for the stuck VM
    assert not gate.is_open("c")
    gate.accepted("b1")
    gate.accepted("b2")
    assert gate.wait_turn("c", clock) is None and clock.now - start == 60


def test_each_tier_is_bounded_from_the_opening_of_the_one_before():
    clock = StepClock()
    gate = order.TierGate([["a"], ["b"], ["c"]], clock, tier_wait_s=60)
    start = clock.now
    gate.wait_turn("c", clock)  # a and b never accepted: c goes two bounds after the start
    assert clock.now - start == 120
