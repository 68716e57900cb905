"""IPMI fencer: powers a host off through its BMC with pyghmi and polls until it reports off."""

import time

from pyghmi import exceptions as ipmi_exceptions
from pyghmi.ipmi import command as ipmi_command

from keyvrm.fencing import base

POWER_OFF = "off"


class IpmiFencer(base.Fencer):
    """Fences by chassis power off; already off counts as fenced, so a repeat is harmless."""

    name = "ipmi"

    def __init__(self, credentials: dict, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep, connect=ipmi_command.Command):
        super().__init__(clock, sleep)
        self._credentials = credentials
        self._timeout_s = power_check_timeout_s
        self._poll_interval_s = poll_interval_s
        self._connect = connect

    def _fence(self, host):
        bmc = self._credentials[host].bmc
        try:
            # bytes on purpose: pyghmi stores them as bytes and matches a live session
            # by comparing with what it is given; str never matches and the second
            # Command to the same BMC then waits forever on a stale "logging" session.
            session = self._connect(bmc=bmc.address, userid=bmc.username.encode(),
                                    password=bmc.password.reveal().encode(), port=bmc.port)
        except ipmi_exceptions.IpmiException as exc:
            detail = str(exc) if str(exc) not in ("", "None") else "no answer"
            return False, f"IPMI login to {bmc.address}:{bmc.port} failed: {detail}"
        return self._power_off(session)

    def _power_off(self, session):
        if self._power_state(session) == POWER_OFF:
            return True, "power already off"
        session.set_power(POWER_OFF, wait=False)
        if self._wait_until(lambda: self._power_state(session) == POWER_OFF,
                            self._timeout_s, self._poll_interval_s):
            return True, "power off confirmed"
        return False, f"power not reported off within {self._timeout_s} s"

    @staticmethod
    def _power_state(session):
        return session.get_power()["powerstate"]
