"""Chooses the BMC fencer (IPMI or Redfish) of a host from its credentials."""

import time

from keyvrm.fencing import base
from keyvrm.fencing import credentials as creds
from keyvrm.fencing import ipmi
from keyvrm.fencing import redfish


class BmcFencers:
    """Callable host -> Fencer: the protocol in the host's credentials decides which."""

    def __init__(self, credentials: dict, power_check_timeout_s: float,
                 poll_interval_s: float = 1.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep, request_timeout_s: float = 10.0):
        kwargs = dict(power_check_timeout_s=power_check_timeout_s,
                      poll_interval_s=poll_interval_s, clock=clock, sleep=sleep)
        self._credentials = credentials
        self._fencers = {creds.PROTOCOL_IPMI: ipmi.IpmiFencer(credentials, **kwargs),
                         creds.PROTOCOL_REDFISH: redfish.RedfishFencer(
                             credentials, connect_timeout_s=request_timeout_s, read_timeout_s=request_timeout_s,
                             **kwargs)}

    def __call__(self, host: str) -> base.Fencer:
        """The fencer for ``host``; LookupError when the file has no BMC for it."""
        entry = self._credentials.get(host)
        if entry is None or entry.bmc is None:
            raise LookupError(f"no BMC credentials for host {host}")
        return self._fencers[entry.bmc.protocol]
