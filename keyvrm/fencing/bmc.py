"""Chooses the power fencer of a host from its credentials: IPMI or Redfish by the BMC's protocol.

Each protocol's library is an extra (``keyvrm[ipmi]``: pyghmi, ``keyvrm[redfish]``:
sushy), imported when a host first needs it: a deployment without one fails to fence
those hosts, naming the extra, and runs everything else.
"""

import importlib
import time

from keyvrm.fencing import base
from keyvrm.fencing import credentials as creds
from keyvrm.fencing import power

# protocol -> (module of its power driver, driver class, library, extra that installs it)
PROTOCOLS = {creds.PROTOCOL_IPMI: ("keyvrm.drivers.fencing.ipmi", "IpmiPowerDriver", "pyghmi", "ipmi"),
             creds.PROTOCOL_REDFISH: ("keyvrm.drivers.fencing.redfish", "RedfishPowerDriver", "sushy",
                                      "redfish")}


class BmcFencers:
    """Callable host -> ``PowerFencer`` over the driver of the protocol in the host's credentials."""

    def __init__(self, credentials: dict, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep, request_timeout_s: float = 10.0):
        self._driver_kwargs = {creds.PROTOCOL_IPMI: {},
                               creds.PROTOCOL_REDFISH: dict(connect_timeout_s=request_timeout_s,
                                                            read_timeout_s=request_timeout_s)}
        self._fencer_kwargs = dict(power_check_timeout_s=power_check_timeout_s,
                                   poll_interval_s=poll_interval_s, clock=clock, sleep=sleep)
        self._credentials = credentials
        self._fencers = {}

    def __call__(self, host: str) -> power.PowerFencer:
        """The fencer for ``host``; LookupError when the file has no BMC for it."""
        entry = self._credentials.get(host)
        if entry is None or entry.bmc is None:
            raise LookupError(f"no BMC credentials for host {host}")
        protocol = entry.bmc.protocol
        if protocol not in self._fencers:
            self._fencers[protocol] = power.PowerFencer(self._driver(protocol), **self._fencer_kwargs)
        return self._fencers[protocol]

    def _driver(self, protocol):
        module_name, class_name, library, extra = PROTOCOLS[protocol]
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise LookupError(f"{protocol} fencing needs {library}: install keyvrm[{extra}] ({exc})") from exc
        return getattr(module, class_name)(self._bmc_of, **self._driver_kwargs[protocol])

    def _bmc_of(self, host):
        return self._credentials[host].bmc
