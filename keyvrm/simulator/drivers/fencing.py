"""Fencing drivers over a simulated region: its hosts' BMCs and its Ceph blocklist."""

from __future__ import annotations

from keyvrm.drivers.fencing import base
from keyvrm.simulator import power
from keyvrm.simulator import region as r


class SimPowerDriver(base.PowerDriver):
    """``PowerDriver`` backed by the simulated BMCs."""

    def __init__(self, region: r.Region):
        self.region = region
        self.bmc = power.BMC(region)

    @r.synchronized
    def get_power_state(self, host):
        return self.bmc.power_state(host)

    @r.synchronized
    def power_off(self, host):
        self.bmc.power_off(host)

    @r.synchronized
    def power_on(self, host):
        self.bmc.power_on(host)


class SimBlocklistDriver(base.BlocklistDriver):
    """``BlocklistDriver`` backed by the simulated Ceph cluster."""

    def __init__(self, region: r.Region):
        self.region = region
        self.blocklist = power.Blocklist(region)

    @r.synchronized
    def add(self, address, expire_s=None):
        self.blocklist.add(address, expire_s)

    @r.synchronized
    def list_addresses(self):
        return set(self.blocklist.entries())
