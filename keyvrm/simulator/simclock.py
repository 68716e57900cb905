"""The ``keyvrm.clock.Clock`` of a simulated region: KeyVRM's waits pass in simulated time.

``time()`` is the region's simulated now. ``sleep(s)`` either advances the region itself
(``driven=True``: nothing else moves the clock, as in tests, so a wait costs no wall time)
or, when a ``RealTimeRunner`` drives the clock at some speed (the demo), waits until the
runner has passed the target. Several threads may sleep at once: advancing is done under
the region's lock to ``max(now, target)``, so time never goes back and a waiter whose
target another thread already passed returns at once.

``asleep`` counts the threads waiting in ``sleep`` on a runner-driven clock and
``side_working`` the threads a flow runs ``side_by_side`` (less the flows waiting for
them): the demo's runner moves time only while every working thread of the engine waits
(``keyvrm.simulator.runner``).
``pause`` is the engine's own wait between two looks (its tick, the fast path's watch):
in simulated time on a runner-driven clock, on the wall on a driven one (where a wait
that moved the clock would race the cycles the caller drives).
"""

from __future__ import annotations

import threading
import time

from keyvrm import clock
from keyvrm.simulator import region as r

# Wall seconds between two looks at a runner-driven clock.
_POLL_WALL_S = 0.005


class SimTimeClock:
    """Time and waits of ``region`` (see the module docstring for ``driven``)."""

    def __init__(self, region: r.Region, driven: bool = True, baton=None):
        self.region = region
        self.driven = driven
        self.baton = baton  # keyvrm.simulator.baton.Baton: flows wait in turn (driven only)
        self._asleep = 0
        self._side_working = 0
        self._asleep_lock = threading.Lock()

    @property
    def asleep(self) -> int:
        """How many threads wait in ``sleep`` for a runner to pass their wake time."""
        return self._asleep

    @property
    def in_turn(self) -> bool:
        """Whether flows run one at a time on this clock (waits must sleep on it, not block)."""
        return self.driven and self.baton is not None

    def side_by_side(self, calls, workers: int) -> list:
        """Results of ``calls`` run side by side: in turn with the baton, else in ``workers`` threads."""
        if self.in_turn and self.baton.holds():
            return self.baton.side_by_side(calls)
        self._count_working(-1)  # the caller now waits for its runs, which work in its stead
        try:
            return clock.in_threads([self._working(call) for call in calls], workers)
        finally:
            self._count_working(+1)

    def _working(self, call):
        def run():
            self._count_working(+1)
            try:
                return call()
            finally:
                self._count_working(-1)
        return run

    def _count_working(self, delta):
        with self._asleep_lock:
            self._side_working += delta

    @property
    def side_working(self) -> int:
        """Threads working side by side for a flow, minus the flows that wait for them (``side_by_side``)."""
        return self._side_working

    def time(self) -> float:
        """The region's simulated now (POSIX seconds)."""
        return self.region.clock.now

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass (no-op when <= 0)."""
        if seconds <= 0:
            return
        if self.driven and self.baton is not None and self.baton.sleep(seconds):
            return
        target = self.region.clock.now + seconds
        # ``driven`` is read on every look: a waiter that started while a runner drove the
        # clock must move it itself once the runner has stopped (the demo's end)
        with self._asleep_lock:
            self._asleep += 1
        try:
            while not self.driven:
                if self.region.clock.now >= target:
                    return
                time.sleep(_POLL_WALL_S)
        finally:
            with self._asleep_lock:
                self._asleep -= 1
        with self.region.lock:
            if self.region.clock.now < target:
                self.region.clock.run_until(target)

    def pause(self, stop: threading.Event, seconds: float) -> bool:
        """Wait ``seconds`` of simulated time (wall time if driven) or until ``stop``; whether it is set."""
        target = self.region.clock.now + seconds
        while not self.driven and self.region.clock.now < target:
            if stop.wait(_POLL_WALL_S):
                return True
        return stop.wait(seconds) if self.driven else stop.is_set()
