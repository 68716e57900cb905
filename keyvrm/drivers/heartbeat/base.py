"""The heartbeat driver interface: when each hypervisor last wrote its heartbeat."""

from __future__ import annotations

import abc


class HeartbeatDriver(abc.ABC):
    """Reads the heartbeat store (Redis Sentinel in production)."""

    @abc.abstractmethod
    def last_heartbeats(self) -> dict[str, float]:
        """Host name -> POSIX time of its last heartbeat; hosts never seen are absent.

        Raises ``DriverUnavailable`` when the store does not answer.
        """
