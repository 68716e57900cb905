"""The metrics driver interface: hypervisor and VM load over the metrics window.

A value the TSDB did not return is None ("missing"), never 0; a host or VM absent from
the result is missing altogether. A TSDB that does not answer raises
``keyvrm.drivers.errors.DriverUnavailable``.
"""

from __future__ import annotations

import abc
from typing import Iterable, Optional

from keyvrm.model import snapshot


class MetricsDriver(abc.ABC):
    """Reads per-hypervisor and per-VM load."""

    @abc.abstractmethod
    def host_metrics(self, hosts: Optional[Iterable[str]] = None
                     ) -> dict[str, snapshot.HostMetrics]:
        """Load of each hypervisor (all when ``hosts`` is None), with down interfaces."""

    @abc.abstractmethod
    def vm_metrics(self, vm_ids: Optional[Iterable[str]] = None
                   ) -> dict[str, snapshot.VMMetrics]:
        """Load of each VM (all when ``vm_ids`` is None)."""

    @abc.abstractmethod
    def targets_up(self, hosts: Optional[Iterable[str]] = None) -> dict[str, bool]:
        """Whether the TSDB scrapes each hypervisor's exporter now (its target's ``up``); absent: not known."""
