"""Drive a simulated region's clock from wall time, ``speed`` simulated seconds per second.

The embedded demo runs API, engine and region in one process: a ``RealTimeRunner``
thread advances the clock under the region's lock, which the sim drivers also hold, so
reads see a consistent region. ``step()`` does one advance (tests call it with a fake
wall clock); ``start()``/``stop()`` run it in the background every ``tick_s``.

With ``busy`` (the demo: a flow of the engine is working rather than waiting on the
clock) the wall time spent busy does not count: simulated time passes only while KeyVRM
waits, as real time would if KeyVRM's work took no time, so what the region shows (a time
to recovery) is KeyVRM's and the region's, not the machine's speed times ``speed``. A
busy stretch longer than ``max_busy_wall_s`` counts again (a wait that is not on the
clock must not stop the region).
"""

from __future__ import annotations

import threading
import time

from keyvrm.simulator import region as r


class RealTimeRunner:
    """Advances ``region.clock`` to follow ``wall()`` at ``speed``x."""

    def __init__(self, region: r.Region, speed: float = 1.0, tick_s: float = 0.1,
                 wall=time.monotonic, busy=None, max_busy_wall_s: float = 10.0):
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.region = region
        self.speed = float(speed)
        self.tick_s = float(tick_s)
        self._wall = wall
        self._busy = busy
        self._max_busy_wall_s = float(max_busy_wall_s)
        self._last_wall = wall()
        self._busy_since = None
        self.counted_wall_s = 0.0  # wall seconds that moved the clock
        self.busy_wall_s = 0.0  # wall seconds that did not: KeyVRM was working
        self._sim_base = region.clock.now
        self._stop = threading.Event()
        self._thread = None

    def step(self) -> int:
        """Advance the clock by the wall time since the last step that counts; returns callbacks run."""
        now = self._wall()
        elapsed, self._last_wall = now - self._last_wall, now
        if self._busy is not None and self._busy():
            self._busy_since = now if self._busy_since is None else self._busy_since
            if now - self._busy_since <= self._max_busy_wall_s:
                self.busy_wall_s += elapsed
                elapsed = 0.0
        else:
            self._busy_since = None
        self.counted_wall_s += elapsed
        target = self._sim_base + self.counted_wall_s * self.speed
        with self.region.lock:
            return self.region.clock.run_until(target)

    def _loop(self):
        while not self._stop.wait(self.tick_s):
            self.step()

    def start(self) -> None:
        """Run ``step`` every ``tick_s`` in a daemon thread until ``stop``."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="keyvrm-sim-clock",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the background thread (waits for it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
