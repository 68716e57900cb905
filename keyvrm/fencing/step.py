"""The HA fencing step: runs every enabled fencer on a host; fenced only if all confirmed.

Which fencers run follows the business config (``AppConfig``):

* ``ha_fence_ceph`` -> the Ceph fencer (blocklist of the host's client addresses);
* ``ha_fence_bmc`` -> the BMC fencer of the host's protocol (IPMI or Redfish), power off
  confirmed within ``ha_power_check_timeout`` seconds;
* ``ha_fence_nova`` -> the Nova fencer (force-down + disable with a reason).

``ha_fence_interfaces`` is not a fencer. It lists the network interfaces (names as the
TSDB reports them, e.g. ``bond0``, ``ens1f0``) whose down state over the metrics window
makes a hypervisor *unsafe* in the HA decision matrix (SPEC section 5.1): such a host is
condemned even when its compute service and heartbeat look fine, and is then fenced by
this step like a failed one. An empty list means no interface is watched. This step never
reads it; the detection does.

Order: the hard fencers first (Ceph, then the BMC), Nova's last. Nova's fencer runs only
once every enabled hard fencer confirmed: forcing the service down is what makes Nova
accept evacuations at once, so Nova hears "down" only of a host proven unable to write
(with the BMC's fast verdict, Nova may still see that host's service up). When a hard
fencer fails, Nova's result is recorded as not run. Both hard fencers run even after the
other failed, so the operator sees each one's result and time.

Outcomes: no fencer enabled -> ``no_fencer`` (nothing is evacuated); any enabled fencer
unconfirmed, failing or not run -> ``fencing_failed``; all confirmed -> ``fenced``.
"""

import dataclasses
import time
from typing import Callable, Optional

from keyvrm.fencing import base
from keyvrm.model import settings

FENCED = "fenced"
NO_FENCER = "no_fencer"
FENCING_FAILED = "fencing_failed"


@dataclasses.dataclass(frozen=True)
class FencingOutcome:
    """The verdict on one host: ``fenced`` is the only value that allows evacuation."""

    host: str
    reason: str
    results: tuple = ()

    @property
    def fenced(self) -> bool:
        """True only when at least one fencer ran and every one confirmed."""
        return (self.reason == FENCED and bool(self.results)
                and all(r.confirmed for r in self.results))


def fence_host(host: str, app_config: settings.AppConfig, ceph: Optional[base.Fencer] = None,
               bmc: Optional[Callable[[str], base.Fencer]] = None,
               nova: Optional[base.Fencer] = None, clock: base.Clock = time.time
               ) -> FencingOutcome:
    """Run every fencer ``app_config`` enables on ``host``; fenced only if all confirmed.

    ``bmc`` maps a host to its BMC fencer (IPMI or Redfish by the host's credentials).
    A fencer that is enabled but has no driver is an unconfirmed result: a config that
    asks for a fence the deployment cannot do must not silently fence less.
    """
    enabled = [(name, fencer) for flag, name, fencer in (
        (app_config.ha_fence_ceph, "ceph", ceph),
        (app_config.ha_fence_bmc, "bmc", bmc),
        (app_config.ha_fence_nova, "nova", nova)) if flag]
    if not enabled:
        return FencingOutcome(host, NO_FENCER)
    results = []
    for name, fencer in enabled:
        if name == "nova" and not all(r.confirmed for r in results):
            now = clock()
            results.append(base.FenceResult(name, host, False, "not run: a hard fencer did not confirm "
                                            "the host is fenced, so Nova is not told it is down", now, now))
            continue
        results.append(_run_one(name, fencer, host, clock))
    results = tuple(results)
    reason = FENCED if all(r.confirmed for r in results) else FENCING_FAILED
    return FencingOutcome(host, reason, results)


def _run_one(name, fencer, host, clock):
    started_at = clock()
    try:
        if fencer is None:
            raise LookupError(f"{name} fencing is enabled but no {name} fencer is configured")
        if name == "bmc":
            fencer = fencer(host)
        return fencer.fence(host)
    except Exception as exc:  # a broken fencer is a failed fence, never a crash
        return base.FenceResult(name, host, False, f"{type(exc).__name__}: {exc}",
                                started_at, clock())
