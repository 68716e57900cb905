"""Runs started side by side ask Nova in the order they were planned (evacuate_order first).

Each run waits for its turn before its first request to Nova and gives the turn on once
it has asked (or ended without asking), so the VM planned first is the first one Nova
hears of; the runs then proceed in parallel. A run waits at most ``MAX_WAIT_S``: a
stuck predecessor delays the others, never blocks them. On a clock whose flows run in
turn (``in_turn``: the simulator's baton) a run waits by sleeping on that clock, which
lets its predecessor run.
"""

from __future__ import annotations

import threading

MAX_WAIT_S = 120.0
TURN_POLL_S = 1.0  # how often a run on an in-turn clock looks whether its turn came


class StartOrder:
    """The turn of each recommendation id, in planned order."""

    def __init__(self, recommendation_ids, max_wait_s: float = MAX_WAIT_S):
        self._turn = {rec_id: i for i, rec_id in enumerate(recommendation_ids)}
        self._passed = set()
        self._next = 0
        self._max_wait_s = max_wait_s
        self._changed = threading.Condition()

    def wait_turn(self, rec_id, clock=None) -> None:
        """Block until every run planned before ``rec_id`` asked Nova or ended (at most ``max_wait_s``)."""
        turn = self._turn.get(rec_id)
        if turn is None:
            return
        if getattr(clock, "in_turn", False):
            waited = 0.0
            while self._next < turn and waited < self._max_wait_s:
                clock.sleep(TURN_POLL_S)
                waited += TURN_POLL_S
            return
        with self._changed:
            self._changed.wait_for(lambda: self._next >= turn, timeout=self._max_wait_s)

    def pass_turn(self, rec_id) -> None:
        """``rec_id`` asked Nova (or will not): the next run may ask (idempotent)."""
        turn = self._turn.get(rec_id)
        if turn is None:
            return
        with self._changed:
            self._passed.add(turn)
            while self._next in self._passed:
                self._next += 1
            self._changed.notify_all()
