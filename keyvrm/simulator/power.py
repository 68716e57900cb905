"""Power and storage fencing in the simulated region: hosts' BMCs and Ceph's blocklist.

A BMC in mode ``ok`` accepts power-off and the host goes dark after a short seeded
delay (and power-on: the host boots after a delay); ``refuse`` answers with an error;
``timeout`` and ``unreachable`` do not answer (a host that lost all power, BMC
included, is ``unreachable``).
"""

from __future__ import annotations

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import FencingError
from keyvrm.drivers.errors import NotFoundInCloud
from keyvrm.drivers.fencing.base import POWER_OFF
from keyvrm.drivers.fencing.base import POWER_ON
from keyvrm.simulator import region as r


def power_down(region: r.Region, host: r.Host) -> None:
    """The host loses power: VMs stop running, heartbeat and service reports stop."""
    region.set_host_condition(host, powered=False)
    for vm in host.vms:
        vm.running = False


def power_up(region: r.Region, host: r.Host) -> None:
    """The host boots: nova-compute starts, drops evacuated allocations, guests stay off."""
    region.set_host_condition(host, powered=True, compute_running=True)
    host.used_vcpus -= host.orphan_vcpus
    host.used_ram_mb -= host.orphan_ram_mb
    host.orphan_vcpus = host.orphan_ram_mb = 0
    for vm in host.vms:
        # resume_guests_state_on_host_boot = False (Nova's default).
        vm.status = r.SHUTOFF
        vm.running = False


class BMC:
    """The BMCs of every host of a region."""

    def __init__(self, region: r.Region):
        self.region = region

    def _answering(self, host_name):
        host = self.region.hosts.get(host_name)
        if host is None:
            raise NotFoundInCloud(f"No BMC known for host {host_name}")
        if host.bmc_mode in (r.BMC_TIMEOUT, r.BMC_UNREACHABLE):
            raise DriverUnavailable(f"BMC of {host_name} did not answer ({host.bmc_mode})")
        if host.bmc_mode == r.BMC_REFUSE:
            raise FencingError(f"BMC of {host_name} refused the request")
        return host

    def power_off(self, host_name: str) -> None:
        """Accept a hard power-off; the host is off after ``power_off_delay_s``."""
        host = self._answering(host_name)
        if host.powered:
            delay = self.region.options.power_off_delay_s * (0.5 + self.region.rng.random())
            self.region.clock.call_later(delay, self._off, host)

    def _off(self, host):
        if host.powered:
            power_down(self.region, host)
            self.region.record_fault("bmc_power_off", [host.name])

    def power_on(self, host_name: str) -> None:
        """Accept a power-on; the host boots after ``power_off_delay_s`` (as long as going dark)."""
        host = self._answering(host_name)
        if not host.powered:
            self.region.clock.call_later(self.region.options.power_off_delay_s, self._on, host)

    def _on(self, host):
        if not host.powered:
            power_up(self.region, host)
            self.region.record_fault("bmc_power_on", [host.name])

    def power_state(self, host_name: str) -> str:
        """``on`` or ``off`` as the BMC reports it."""
        host = self._answering(host_name)
        return POWER_ON if host.powered else POWER_OFF


class Blocklist:
    """Ceph's OSD blocklist of the region's storage cluster."""

    def __init__(self, region: r.Region):
        self.region = region

    def _answering(self):
        if self.region.now < self.region.ceph_unavailable_until:
            raise FencingError("Ceph monitors did not answer: error connecting to the cluster (timed out)")

    def add(self, address: str, expire_s=None) -> None:
        """Blocklist ``address`` (an ``IP:port/nonce`` entity address)."""
        self._answering()
        if ":" not in address or "/" not in address:
            raise FencingError(f"{address} is not a Ceph entity address (IP:port/nonce)")
        expiry = None if expire_s is None else self.region.now + float(expire_s)
        self.region.blocklist[address] = expiry

    def entries(self) -> list[str]:
        """Addresses blocklisted and not expired."""
        self._answering()
        now = self.region.now
        return sorted(a for a, exp in self.region.blocklist.items() if exp is None or exp > now)
