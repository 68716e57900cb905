"""The full set of sim drivers over one simulated region (what the embedded default uses)."""

from __future__ import annotations

import dataclasses

from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator.drivers.fencing import SimBlocklistDriver
from keyvrm.simulator.drivers.fencing import SimPowerDriver
from keyvrm.simulator.drivers.heartbeat import SimHeartbeatDriver
from keyvrm.simulator.drivers.metrics import SimMetricsDriver
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
