"""A hypervisor record as the requested microversion shows it: from 1.12 with its fencing methods and ISO times."""

import datetime

from keyvrm.api import microversion
from keyvrm.db import models

# The fencing method each fencer stands for (a BMC fencer is named after its protocol).
METHODS = {"ceph": "ceph_blocklist", "bmc": "bmc_power_off", "ipmi": "bmc_power_off",
           "redfish": "bmc_power_off", "nova": "nova_force_down"}


def _time(value):
    """A stored step time (POSIX seconds, or text an older record kept) as the API shows times."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return models.as_stored_time(value)
    if isinstance(value, str):
        try:
            return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return None


def _step(step) -> dict:
    return dict(step, method=METHODS.get(step.get("fencer"), step.get("fencer")),
                outcome="confirmed" if step.get("confirmed") else "failed",
                started_at=_time(step.get("started_at")), finished_at=_time(step.get("finished_at")))


def shown(hypervisor, version) -> dict:
    """``hypervisor`` (as ``keyvrm.db.hypervisors`` reads it) as ``version`` serves it.

    From 1.12 each fencing step has ``method`` and ``outcome`` and RFC 3339 times, and
    ``service`` (Nova's view in the newest snapshot) has ``seen_at``, that snapshot's
    time; before, the record as it is stored.
    """
    if version < microversion.FENCING_RECORD:
        return hypervisor
    service = hypervisor["service"]
    return dict(hypervisor, fencing=[_step(step) for step in hypervisor["fencing"]],
                service=None if service is None else dict(service, seen_at=hypervisor["seen_at"]))
