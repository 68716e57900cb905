"""Redfish fencer: ForceOff through the system's reset action with sushy, then polls power state."""

import time

import sushy
from sushy import auth as sushy_auth

from keyvrm.fencing import base

_AUTH = {"basic": sushy_auth.BasicAuth, "session": sushy_auth.SessionAuth,
         "auto": sushy_auth.SessionOrBasicAuth}


class RedfishFencer(base.Fencer):
    """Fences by ``ForceOff``; already off counts as fenced, so a repeat is harmless."""

    name = "redfish"

    def __init__(self, credentials: dict, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep, retries: int = 3, retry_delay_s: float = 1.0,
                 connect_timeout_s: float = 10.0, read_timeout_s: float = 30.0,
                 connect=sushy.Sushy):
        super().__init__(clock, sleep)
        self._credentials = credentials
        self._timeout_s = power_check_timeout_s
        self._poll_interval_s = poll_interval_s
        self._connect = connect
        # sushy retries with its own time.sleep: keep that bounded, it runs outside our clock
        self._session_kwargs = dict(server_side_retries=retries,
                                    server_side_retries_delay=retry_delay_s,
                                    connect_timeout=connect_timeout_s,
                                    read_timeout=read_timeout_s)

    def _system(self, bmc):
        auth = _AUTH[bmc.auth](username=bmc.username, password=bmc.password.reveal())
        url = f"{bmc.scheme}://{bmc.address}:{bmc.port}/redfish/v1"
        root = self._connect(url, auth=auth, verify=bmc.verify_tls, **self._session_kwargs)
        return root.get_system(bmc.system_id)

    def _fence(self, host):
        bmc = self._credentials[host].bmc
        system = self._system(bmc)
        if self._power_state(system) == sushy.POWER_STATE_OFF:
            return True, "power already off"
        system.reset_system(sushy.RESET_FORCE_OFF)
        if self._wait_until(lambda: self._power_state(system) == sushy.POWER_STATE_OFF,
                            self._timeout_s, self._poll_interval_s):
            return True, "power off confirmed"
        return False, f"power not reported off within {self._timeout_s} s"

    @staticmethod
    def _power_state(system):
        system.refresh(force=True)
        return system.power_state
