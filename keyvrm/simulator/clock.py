"""A discrete-event clock: simulated time that runs as fast as the events allow.

Time is POSIX seconds starting at ``start``. Callbacks scheduled with ``call_at`` /
``call_later`` run in time order (ties in scheduling order) when ``advance`` or
``run_until`` passes their time; ``now`` is the callback's own time while it runs.
"""

from __future__ import annotations

import heapq
import itertools

# 2026-01-01T00:00:00Z: a fixed, readable start so runs are reproducible.
DEFAULT_START_S = 1767225600.0


class Timer:
    """A scheduled callback; ``cancel()`` keeps it from running."""

    __slots__ = ("when", "callback", "args", "cancelled")

    def __init__(self, when, callback, args):
        self.when = when
        self.callback = callback
        self.args = args
        self.cancelled = False

    def cancel(self):
        self.cancelled = True


class SimClock:
    """Simulated time with scheduled callbacks."""

    def __init__(self, start_s: float = DEFAULT_START_S):
        self.start_s = float(start_s)
        self.now = float(start_s)
        self._queue = []
        self._seq = itertools.count()

    def time(self) -> float:
        """The current simulated POSIX time (usable wherever a ``time.time`` is injected)."""
        return self.now

    @property
    def elapsed_s(self) -> float:
        return self.now - self.start_s

    def call_at(self, when_s: float, callback, *args) -> Timer:
        """Run ``callback(*args)`` at simulated time ``when_s`` (not before now)."""
        timer = Timer(max(float(when_s), self.now), callback, args)
        heapq.heappush(self._queue, (timer.when, next(self._seq), timer))
        return timer

    def call_later(self, delay_s: float, callback, *args) -> Timer:
        """Run ``callback(*args)`` ``delay_s`` simulated seconds from now."""
        return self.call_at(self.now + max(0.0, float(delay_s)), callback, *args)

    def run_until(self, when_s: float) -> int:
        """Run every callback due up to ``when_s``, then set now to it; returns how many ran."""
        ran = 0
        queue = self._queue
        while queue and queue[0][0] <= when_s:
            _, _, timer = heapq.heappop(queue)
            if timer.cancelled:
                continue
            self.now = timer.when
            timer.callback(*timer.args)
            ran += 1
        self.now = max(self.now, float(when_s))
        return ran

    def advance(self, delay_s: float) -> int:
        """Move time forward by ``delay_s``, running what falls due."""
        return self.run_until(self.now + delay_s)

    def pending(self) -> int:
        """Callbacks scheduled and not cancelled."""
        return sum(1 for _, _, t in self._queue if not t.cancelled)
