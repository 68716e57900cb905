"""Drive a simulated region's clock from wall time, ``speed`` simulated seconds per second.

The embedded demo runs API, engine and region in one process: a ``RealTimeRunner``
thread advances the clock under the region's lock, which the sim drivers also hold, so
reads see a consistent region. ``step()`` does one advance (tests call it with a fake
wall clock); ``start()``/``stop()`` run it in the background every ``tick_s``.
"""

from __future__ import annotations

import threading
import time

from keyvrm.simulator import region as r


class RealTimeRunner:
    """Advances ``region.clock`` to follow ``wall()`` at ``speed``x."""

    def __init__(self, region: r.Region, speed: float = 1.0, tick_s: float = 0.1,
                 wall=time.monotonic):
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.region = region
        self.speed = float(speed)
        self.tick_s = float(tick_s)
        self._wall = wall
        self._wall_base = wall()
        self._sim_base = region.clock.now
        self._stop = threading.Event()
        self._thread = None

    def step(self) -> int:
        """Advance the clock to where wall time says it should be; returns callbacks run."""
        target = self._sim_base + (self._wall() - self._wall_base) * self.speed
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
