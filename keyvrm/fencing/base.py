"""The small fencer interface of keyvrm.fencing: a Fencer fences one host, a FenceResult says how.

Time always comes from an injected ``clock`` (seconds, float) and ``sleep`` so tests can run
the timeout paths without waiting.
"""

import abc
import dataclasses
import time
from typing import Callable

Clock = Callable[[], float]
Sleep = Callable[[float], None]


@dataclasses.dataclass(frozen=True)
class FenceResult:
    """Outcome of one fencer on one host; ``confirmed`` is True only when the fence was proven."""

    fencer: str
    host: str
    confirmed: bool
    message: str
    started_at: float
    finished_at: float

    @property
    def duration_s(self) -> float:
        """Seconds the fencer spent on the host."""
        return self.finished_at - self.started_at


class Fencer(abc.ABC):
    """Fences a host and proves the fence; never raises for a peer failure, reports it."""

    name = "fencer"

    def __init__(self, clock: Clock = time.time, sleep: Sleep = time.sleep):
        self._clock = clock
        self._sleep = sleep

    def fence(self, host: str) -> FenceResult:
        """Fence ``host``: the result is confirmed only if the fence was verified afterwards."""
        started_at = self._clock()
        try:
            confirmed, message = self._fence(host)
        except Exception as exc:  # a peer failure is a result, not a crash of the step
            confirmed, message = False, f"{type(exc).__name__}: {exc}"
        return FenceResult(self.name, host, confirmed, message, started_at, self._clock())

    @abc.abstractmethod
    def _fence(self, host: str) -> tuple:
        """Do the fencing of ``host``; return (confirmed, message)."""

    def _wait_until(self, check: Callable[[], bool], timeout_s: float,
                    poll_interval_s: float) -> bool:
        """Call ``check`` until it is true or ``timeout_s`` passed; True if it became true."""
        deadline = self._clock() + timeout_s
        while True:
            if check():
                return True
            remaining_s = deadline - self._clock()
            if remaining_s <= 0:
                return False
            self._sleep(min(poll_interval_s, remaining_s))
