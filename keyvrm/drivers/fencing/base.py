"""The fencing driver interfaces: BMC power control and Ceph blocklisting.

A fencer that answers and refuses raises ``keyvrm.drivers.errors.FencingError``; one
that does not answer (timeout, unreachable) raises ``DriverUnavailable``.
"""

from __future__ import annotations

import abc
from typing import Optional

POWER_ON = "on"
POWER_OFF = "off"
POWER_STATES = (POWER_ON, POWER_OFF)


class PowerDriver(abc.ABC):
    """A host's BMC (IPMI or Redfish)."""

    @abc.abstractmethod
    def power_off(self, host: str) -> None:
        """Ask the BMC to power the host off (hard); confirm with ``power_status``."""

    @abc.abstractmethod
    def power_status(self, host: str) -> str:
        """``POWER_ON`` or ``POWER_OFF`` as the BMC reports it."""


class BlocklistDriver(abc.ABC):
    """Ceph's OSD client blocklist."""

    @abc.abstractmethod
    def blocklist_add(self, address: str, expire_s: Optional[float] = None) -> None:
        """Blocklist a client address (``IP:0/0`` blocks every client of the IP)."""

    @abc.abstractmethod
    def blocklist_list(self) -> list[str]:
        """Addresses currently blocklisted."""
