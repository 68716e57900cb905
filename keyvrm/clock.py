"""Where time comes from: an injectable clock, so the simulator can run waits fast.

Everything that waits or stamps times takes a ``Clock``. Production code uses
``WallClock``; the simulator supplies an adapter whose ``sleep`` advances simulated time.
"""

from concurrent import futures
import threading
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


def pause(clock, stop: threading.Event, seconds: float) -> bool:
    """Wait ``seconds`` of ``clock``'s time, or until ``stop`` is set; whether ``stop`` is set.

    A clock with a ``pause`` of its own (the simulated region's) measures the wait in its
    time; any other waits on the wall, as ``stop.wait`` does.
    """
    own = getattr(clock, "pause", None)
    return own(stop, seconds) if own is not None else stop.wait(seconds)


def in_threads(calls, workers: int) -> list:
    """The results of ``calls`` (callables without arguments), run in at most ``workers`` threads, in order."""
    with futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="keyvrm-side-by-side") as pool:
        return list(pool.map(lambda call: call(), calls))


def side_by_side(clock, calls, workers: int) -> list:
    """Run ``calls`` side by side as ``clock`` has its waits interleave (its own ``side_by_side``, else threads)."""
    own = getattr(clock, "side_by_side", None)
    return own(calls, workers) if own is not None else in_threads(calls, workers)


def wait_until(clock, changed: threading.Condition, ready, poll_s: float = 1.0) -> None:
    """Return once ``ready()`` (called with ``changed`` held) is true, waiting in ``clock``'s time.

    On the wall clock the waiter blocks on ``changed`` (whoever makes ``ready`` true
    notifies it), looking again every ``poll_s`` for conditions that time alone makes
    true. On any other clock (simulated time, which passes only while the flows sleep on
    it, or one whose flows run in turn) the waiter sleeps on the clock ``poll_s`` at a
    time, so the work it waits for can go on.
    """
    if isinstance(clock, WallClock):
        with changed:
            while not ready():
                changed.wait(poll_s)
        return
    while True:
        with changed:
            if ready():
                return
        clock.sleep(poll_s)
