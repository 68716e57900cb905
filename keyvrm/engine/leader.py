"""Who runs the schedule: a tooz lock held by exactly one engine at a time.

The engine that holds the lock ``keyvrm-engine-leader`` (a tooz distributed lock; Redis
in production) runs the periodic MasterFlow. tooz's heartbeat thread refreshes the held
lock, and the engine's beat (a thread of its own, see ``keyvrm.engine.service``) checks
and refreshes it too; an engine that dies stops refreshing, the lock expires after
``ttl_s`` and the next engine to beat takes it. Without a coordination URL the one
engine is always the leader.
"""

from __future__ import annotations

import logging
from urllib import parse

import tooz
from tooz import coordination

LOG = logging.getLogger(__name__)
LOCK_NAME = b"keyvrm-engine-leader"


def with_lock_ttl(url: str, ttl_s: int) -> str:
    """``url`` with tooz's ``lock_timeout`` (and ``timeout``) set to ``ttl_s`` unless it names them."""
    parts = parse.urlsplit(url)
    query = parse.parse_qs(parts.query)
    for option in ("lock_timeout", "timeout"):
        query.setdefault(option, [str(ttl_s)])
    return parse.urlunsplit(parts._replace(query=parse.urlencode(query, doseq=True)))


class SoleLeader:
    """The single-engine case: always the leader."""

    is_leader = True

    def start(self) -> None:
        """Nothing to join."""

    def tick(self) -> bool:
        """Always the leader."""
        return True

    def stop(self) -> None:
        """Nothing to release."""


class LeaderElection:
    """Leadership through one tooz lock, taken by ``tick`` and refreshed by ``tick`` and tooz's heartbeat."""

    def __init__(self, url: str, member_id: str, ttl_s: int, namespace: str = "keyvrm", coordinator=None):
        self._coordinator = coordinator or coordination.get_coordinator(with_lock_ttl(url, ttl_s),
                                                                        member_id.encode())
        self._lock_name = namespace.encode() + b"-" + LOCK_NAME
        self._lock = None
        self.is_leader = False

    def start(self) -> None:
        """Connect to the coordination backend with tooz's heartbeat thread (it refreshes held locks)."""
        self._coordinator.start(start_heart=True)
        self._lock = self._coordinator.get_lock(self._lock_name)

    def tick(self) -> bool:
        """Take the lock if free, or refresh it if held; whether this engine leads now."""
        try:
            if self.is_leader:
                self.is_leader = bool(self._lock.heartbeat())
                if not self.is_leader:
                    LOG.warning("lost the leader lock; another engine runs the schedule")
            if not self.is_leader:
                self.is_leader = bool(self._lock.acquire(blocking=False))
                if self.is_leader:
                    LOG.info("elected leader: this engine runs the schedule")
        except tooz.ToozError as exc:
            if self.is_leader:
                LOG.warning("leader lock refresh failed (%s); standing down", exc)
            self.is_leader = False
        return self.is_leader

    def stop(self) -> None:
        """Release the lock (another engine takes over at its next tick) and disconnect."""
        try:
            if self.is_leader:
                self._lock.release()
        except tooz.ToozError as exc:
            LOG.warning("could not release the leader lock: %s", exc)
        self.is_leader = False
        self._coordinator.stop()
