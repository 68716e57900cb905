"""The fencing driver interfaces: a BMC's power control and Ceph's client blocklist.

Each interface has one implementation per peer (``ipmi``, ``redfish`` and ``ceph`` here,
and the simulated region's in ``keyvrm.simulator``); the fencers of ``keyvrm.fencing``
that act and then wait for the proof are written once, over these interfaces.

A peer that answers and refuses raises ``keyvrm.drivers.errors.FencingError``; one that
does not answer (timeout, unreachable) raises ``DriverUnavailable``.
"""

from __future__ import annotations

import abc
from typing import Optional

POWER_ON = "on"
POWER_OFF = "off"
POWER_STATES = (POWER_ON, POWER_OFF)
POWER_UNREACHABLE = "unreachable"  # what a harvest records of a BMC that did not answer


class PowerDriver(abc.ABC):
    """The BMCs of hosts: read and set a host's power (hard, as a power button)."""

    name = "bmc"

    @abc.abstractmethod
    def get_power_state(self, host: str) -> str:
        """``POWER_OFF`` when the host's BMC reports it off, else ``POWER_ON``."""

    @abc.abstractmethod
    def power_off(self, host: str) -> None:
        """Ask the BMC to cut the host's power; returns before it is off."""

    @abc.abstractmethod
    def power_on(self, host: str) -> None:
        """Ask the BMC to power the host on; returns before it is on."""


class BlocklistDriver(abc.ABC):
    """Ceph's OSD client blocklist."""

    @abc.abstractmethod
    def add(self, address: str, expire_s: Optional[float] = None) -> None:
        """Blocklist a client address (``IP:0/0`` blocks every client of the IP); a repeat renews it."""

    @abc.abstractmethod
    def list_addresses(self) -> set[str]:
        """The addresses blocklisted now."""
