"""IPMI power driver: reads and sets a host's chassis power through its BMC with pyghmi."""

import contextlib

from pyghmi import exceptions as ipmi_exceptions
from pyghmi.ipmi import command as ipmi_command

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import FencingError
from keyvrm.drivers.fencing import base


class IpmiPowerDriver(base.PowerDriver):
    """``PowerDriver`` over IPMI; ``bmc_of(host)`` is the host's BMC credentials.

    Each call opens its session with ``connect``; pyghmi hands back the live session of
    the same BMC and user, so polling a host costs no new login.
    """

    name = "ipmi"

    def __init__(self, bmc_of, connect=ipmi_command.Command):
        self._bmc_of = bmc_of
        self._connect = connect

    def get_power_state(self, host):
        with self._session(host) as session:
            state = session.get_power()["powerstate"]
        return base.POWER_OFF if state == base.POWER_OFF else base.POWER_ON

    def power_off(self, host):
        with self._session(host) as session:
            session.set_power(base.POWER_OFF, wait=False)

    def power_on(self, host):
        with self._session(host) as session:
            session.set_power(base.POWER_ON, wait=False)

    @contextlib.contextmanager
    def _session(self, host):
        bmc = self._bmc_of(host)
        try:
            # bytes on purpose: pyghmi stores them as bytes and matches a live session
            # by comparing with what it is given; str never matches and the second
            # Command to the same BMC then waits forever on a stale "logging" session.
            yield self._connect(bmc=bmc.address, userid=bmc.username.encode(),
                                password=bmc.password.reveal().encode(), port=bmc.port)
        except ipmi_exceptions.IpmiException as exc:
            detail = str(exc)
            if detail in ("", "None"):
                raise DriverUnavailable(f"IPMI BMC {bmc.address}:{bmc.port}: no answer") from exc
            raise FencingError(f"IPMI BMC {bmc.address}:{bmc.port}: {detail}") from exc
