"""The power fencer: cuts a host's power through any ``PowerDriver`` and waits until it reads off.

One fencer for every BMC (IPMI, Redfish, the simulated region's): the driver acts, this
fencer decides when the fence is proven. It waits on the injected clock, so the
simulator's BMC faults (one that refuses, one that never answers, a host that never goes
dark) reach the HA step exactly as a real BMC's would.
"""

import time

from keyvrm.drivers.fencing import base as driver_base
from keyvrm.fencing import base


class PowerFencer(base.Fencer):
    """Hard power-off, confirmed when the BMC reports the host off; already off counts as fenced."""

    def __init__(self, driver: driver_base.PowerDriver, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep):
        super().__init__(clock, sleep)
        self.name = driver.name
        self._driver = driver
        self._timeout_s = float(power_check_timeout_s)
        self._poll_interval_s = float(poll_interval_s)

    def _fence(self, host):
        if self._is_off(host):
            return True, "power already off"
        self._driver.power_off(host)
        if self._wait_until(lambda: self._is_off(host), self._timeout_s, self._poll_interval_s):
            return True, "power off confirmed"
        return False, f"power not reported off within {self._timeout_s:g} s (ha_power_check_timeout)"

    def power_state(self, host) -> str:
        """What the host's BMC reports now (``on`` or ``off``); the driver's errors are raised."""
        return self._driver.get_power_state(host)

    def _is_off(self, host):
        return self.power_state(host) == driver_base.POWER_OFF
