"""Where time comes from: an injectable clock, so the simulator can run waits fast.

Everything that waits or stamps times takes a ``Clock``. Production code uses
``WallClock``; the simulator supplies an adapter whose ``sleep`` advances simulated time.
"""

import time
import typing


class Clock(typing.Protocol):
    """A source of time that can also wait."""

    def time(self) -> float:
        """Return the current time in POSIX seconds."""

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (in whatever time this clock measures)."""


class WallClock:
    """Real time: ``time.time()`` and ``time.sleep()``."""

    def time(self) -> float:
        """Return the wall-clock time in POSIX seconds."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds`` of wall time (no-op when <= 0)."""
        if seconds > 0:
            time.sleep(seconds)
