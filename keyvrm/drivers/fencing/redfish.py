"""Redfish power driver: reads a system's power state and resets it with sushy."""

import contextlib
import threading

import sushy
from sushy import auth as sushy_auth
from sushy import exceptions as sushy_exceptions

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import FencingError
from keyvrm.drivers.fencing import base

_AUTH = {"basic": sushy_auth.BasicAuth, "session": sushy_auth.SessionAuth,
         "auto": sushy_auth.SessionOrBasicAuth}


class RedfishPowerDriver(base.PowerDriver):
    """``PowerDriver`` over Redfish; ``bmc_of(host)`` is the host's BMC credentials.

    One sushy connection per host, opened at its first call and kept (a session BMC
    has few session slots; sushy renews an expired session by itself).
    """

    name = "redfish"

    def __init__(self, bmc_of, retries: int = 3, retry_delay_s: float = 1.0,
                 connect_timeout_s: float = 10.0, read_timeout_s: float = 30.0,
                 connect=sushy.Sushy):
        self._bmc_of = bmc_of
        self._connect = connect
        # sushy retries with its own time.sleep: keep that bounded, it runs outside our clock
        self._session_kwargs = dict(server_side_retries=retries,
                                    server_side_retries_delay=retry_delay_s,
                                    connect_timeout=connect_timeout_s,
                                    read_timeout=read_timeout_s)
        self._roots = {}
        self._lock = threading.Lock()

    def get_power_state(self, host):
        with self._system(host) as system:
            system.refresh(force=True)
            off = system.power_state == sushy.POWER_STATE_OFF
        return base.POWER_OFF if off else base.POWER_ON

    def power_off(self, host):
        with self._system(host) as system:
            system.reset_system(sushy.RESET_FORCE_OFF)

    def power_on(self, host):
        with self._system(host) as system:
            system.reset_system(sushy.RESET_ON)

    @contextlib.contextmanager
    def _system(self, host):
        bmc = self._bmc_of(host)
        where = f"Redfish BMC {bmc.address}:{bmc.port}"
        try:
            yield self._root(host, bmc).get_system(bmc.system_id)
        except sushy_exceptions.ConnectionError as exc:
            raise DriverUnavailable(f"{where} did not answer: ConnectionError: {exc}") from exc
        except sushy_exceptions.SushyError as exc:
            raise FencingError(f"{where}: {type(exc).__name__}: {exc}") from exc

    def _root(self, host, bmc):
        with self._lock:
            root = self._roots.get(host)
        if root is None:  # connect outside the lock: a dead BMC must not hold up other hosts
            auth = _AUTH[bmc.auth](username=bmc.username, password=bmc.password.reveal())
            url = f"{bmc.scheme}://{bmc.address}:{bmc.port}/redfish/v1"
            root = self._connect(url, auth=auth, verify=bmc.verify_tls, **self._session_kwargs)
            with self._lock:
                root = self._roots.setdefault(host, root)
        return root
