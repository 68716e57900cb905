"""Runs started together ask Nova in their planned order; one that never asks does not hold the others."""

import threading

from keyvrm.executor import order


def test_runs_pass_in_planned_order_whatever_order_their_threads_arrive_in():
    start = order.StartOrder(["a", "b", "c"])
    asked = []

    def run(rec_id):
        start.wait_turn(rec_id)
        asked.append(rec_id)
        start.pass_turn(rec_id)

    threads = [threading.Thread(target=run, args=(rec_id,)) for rec_id in ("c", "b", "a")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert asked == ["a", "b", "c"]


def test_a_run_that_ended_without_asking_gives_its_turn_on():
    start = order.StartOrder(["a", "b"])
    start.pass_turn("a")
    start.pass_turn("a")  # idempotent
    done = threading.Event()
    threading.Thread(target=lambda: (start.wait_turn("b"), done.set())).start()
    assert done.wait(5)


def test_a_stuck_predecessor_delays_but_never_blocks():
    start = order.StartOrder(["a", "b"], max_wait_s=0.2)
    start.wait_turn("b")  # "a" never passes: returns after the wait
    start.wait_turn("unknown")  # not one of the ordered runs: no wait
