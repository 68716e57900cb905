"""Runs started side by side ask Nova in the order they were planned (evacuate_order first).

Each run waits for its turn before its first request to Nova and gives the turn on once
it has asked (or ended without asking), so the VM planned first is the first one Nova
hears of; the runs then proceed in parallel. A run waits at most ``MAX_WAIT_S``: a
stuck predecessor delays the others, never blocks them.
"""

from __future__ import annotations

import threading

MAX_WAIT_S = 120.0


class StartOrder:
    """The turn of each recommendation id, in planned order."""

    def __init__(self, recommendation_ids, max_wait_s: float = MAX_WAIT_S):
        self._turn = {rec_id: i for i, rec_id in enumerate(recommendation_ids)}
        self._passed = set()
        self._next = 0
        self._max_wait_s = max_wait_s
        self._changed = threading.Condition()

    def wait_turn(self, rec_id) -> None:
        """Block until every run planned before ``rec_id`` asked Nova or ended."""
        turn = self._turn.get(rec_id)
        if turn is None:
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
