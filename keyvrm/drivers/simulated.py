"""The full set of sim drivers over one simulated region (what the embedded default uses)."""

from __future__ import annotations

import dataclasses

from keyvrm.drivers.cloud.sim import SimCloudDriver
from keyvrm.drivers.fencing.sim import SimBlocklistDriver
from keyvrm.drivers.fencing.sim import SimPowerDriver
from keyvrm.drivers.heartbeat.sim import SimHeartbeatDriver
from keyvrm.drivers.metrics.sim import SimMetricsDriver
from keyvrm.simulator import region as r


@dataclasses.dataclass(frozen=True)
class SimDrivers:
    """One driver of each kind, all reading and acting on the same region."""

    cloud: SimCloudDriver
    metrics: SimMetricsDriver
    heartbeat: SimHeartbeatDriver
    power: SimPowerDriver
    blocklist: SimBlocklistDriver


def for_region(region: r.Region) -> SimDrivers:
    """The sim drivers of ``region``."""
    return SimDrivers(cloud=SimCloudDriver(region), metrics=SimMetricsDriver(region),
                      heartbeat=SimHeartbeatDriver(region), power=SimPowerDriver(region),
                      blocklist=SimBlocklistDriver(region))
