"""The heartbeat driver over a simulated region: the last tick each host's agent wrote."""

from __future__ import annotations

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.heartbeat import base
from keyvrm.simulator import region as r


class SimHeartbeatDriver(base.HeartbeatDriver):
    """``HeartbeatDriver`` backed by a ``keyvrm.simulator.region.Region``."""

    def __init__(self, region: r.Region):
        self.region = region

    @r.synchronized
    def last_heartbeats(self):
        if self.region.now < self.region.heartbeat_unavailable_until:
            raise DriverUnavailable("heartbeat store did not answer: no Sentinel master")
        out = {}
        for host in self.region.hosts.values():
            at = self.region.last_heartbeat(host)
            if at is not None:
                out[host.name] = at
        return out
