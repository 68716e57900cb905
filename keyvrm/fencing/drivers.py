"""Fencers over the fencing driver interfaces: any BMC power driver, any Ceph blocklist driver.

The simulated region's BMCs and Ceph cluster reach HA through these, so its faults (a BMC
that refuses, one that never answers, a host that never goes dark) are what the fencing
step sees, as it would see a real peer's. The fencers wait on the injected clock.
"""

from __future__ import annotations

import time
from typing import Callable

from keyvrm.drivers.fencing import base as driver_base
from keyvrm.fencing import base


class PowerFencer(base.Fencer):
    """Hard power-off through a ``PowerDriver``, confirmed when the BMC reports the host off."""

    name = "bmc"

    def __init__(self, driver: driver_base.PowerDriver, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time, sleep: base.Sleep = time.sleep):
        super().__init__(clock, sleep)
        self._driver = driver
        self._timeout_s = float(power_check_timeout_s)
        self._poll_interval_s = float(poll_interval_s)

    def _fence(self, host):
        self._driver.power_off(host)
        if self._wait_until(lambda: self._driver.power_status(host) == driver_base.POWER_OFF,
                            self._timeout_s, self._poll_interval_s):
            return True, "powered off; the BMC reports the host off"
        return False, "the BMC did not report the host off within %g s (ha_power_check_timeout)" % self._timeout_s


class BlocklistFencer(base.Fencer):
    """Blocklists the host's Ceph client addresses through a ``BlocklistDriver``, confirmed by listing them."""

    name = "ceph"

    def __init__(self, driver: driver_base.BlocklistDriver, addresses_of: Callable[[str], list],
                 expire_s: float = 7 * 24 * 3600.0, clock: base.Clock = time.time, sleep: base.Sleep = time.sleep):
        super().__init__(clock, sleep)
        self._driver = driver
        self._addresses_of = addresses_of
        self._expire_s = expire_s

    def _fence(self, host):
        addresses = list(self._addresses_of(host))
        if not addresses:
            return False, "no Ceph client addresses known for the host"
        for address in addresses:
            self._driver.blocklist_add(address, self._expire_s)
        listed = set(self._driver.blocklist_list())
        missing = [a for a in addresses if a not in listed]
        if missing:
            return False, "not in the blocklist after adding: %s" % ", ".join(missing)
        return True, "blocklisted %s" % ", ".join(addresses)
