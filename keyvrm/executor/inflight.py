"""Migrations in flight per target host and in all, and a run's wait for room before it asks Nova.

A run takes a place just before it asks Nova for an evacuation or a live migration and
gives it back once that migration ended (or the attempt ended without one): at most
``[executor] max_concurrent_per_host`` go to one target host at once and at most
``[executor] max_concurrent_per_region`` in all (0: no bound). A run that finds no place
waits on its flow's clock (``keyvrm.clock.wait_until``), at most until its own lifecycle
deadline. The counts are this engine process's: the embedded default and a single engine
see every migration of the region; engines sharing a jobboard each count their own.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from typing import Optional

from keyvrm import clock as clocks

POLL_S = 1.0  # how often a waiting run on a simulated clock looks for room

PER_HOST = "max_concurrent_per_host"
PER_REGION = "max_concurrent_per_region"


@dataclasses.dataclass(frozen=True)
class Room:
    """A place taken: how long the run waited for it and which bound held it back (None: none did)."""

    waited_s: float = 0.0
    bound: Optional[str] = None
    in_flight: int = 0  # what the bound counted when the run began to wait

    def message(self, target: str, limit: int) -> str:
        """The journal line an operator reads (for a run that waited)."""
        where = "to %s" % target if self.bound == PER_HOST else "in the region"
        return "waited %d s for room: %d migrations in flight %s ([executor] %s = %d)" % (
            round(self.waited_s), self.in_flight, where, self.bound, limit)


class InFlight:
    """The migrations this engine asked Nova for and has not yet seen end, by target host."""

    def __init__(self):
        self._to_host = collections.Counter()
        self._total = 0
        self._changed = threading.Condition()

    def to_host(self, target: str) -> int:
        """Migrations in flight to ``target`` now."""
        with self._changed:
            return self._to_host[target]

    @property
    def total(self) -> int:
        """Migrations in flight now, to any host."""
        with self._changed:
            return self._total

    def _full(self, target, per_host, per_region) -> Optional[str]:
        if self._to_host[target] >= per_host:
            return PER_HOST
        if per_region and self._total >= per_region:
            return PER_REGION
        return None

    def _count(self, target, delta) -> None:
        self._to_host[target] += delta
        if not self._to_host[target]:
            del self._to_host[target]
        self._total += delta
        if delta < 0:
            self._changed.notify_all()

    def take(self, target: str, clock, *, per_host: int, per_region: int, deadline_s: float
             ) -> Optional[Room]:
        """Take a place for a migration to ``target``, waiting for one; None if ``deadline_s`` came first."""
        with self._changed:
            bound = self._full(target, per_host, per_region)
            if bound is None:
                self._count(target, +1)
                return Room()
            counted = self._to_host[target] if bound == PER_HOST else self._total
        began = clock.time()
        taken = []

        def room_or_deadline():
            if self._full(target, per_host, per_region) is None:
                self._count(target, +1)
                taken.append(True)
                return True
            return clock.time() >= deadline_s
        clocks.wait_until(clock, self._changed, room_or_deadline, POLL_S)
        return Room(clock.time() - began, bound, counted) if taken else None

    def adopt(self, target: str) -> None:
        """Count a migration already running (found after a restart) without waiting."""
        with self._changed:
            self._count(target, +1)

    def give_back(self, target: str) -> None:
        """The migration to ``target`` ended (or was never asked for): its place is free."""
        with self._changed:
            self._count(target, -1)
