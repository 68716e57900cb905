"""Whether work in flight can still end: a migration whose target (or, live, either end) died cannot.

Nova writes nothing for a nova-compute that is dead: an evacuation whose rebuild cast went
to a dead target stays ``accepted`` for ever, one whose target died mid-rebuild stays
``pre-migrating``, and a live migration with a dead end never completes. A host is dead
for this when Nova shows its compute service down or forced down, or when KeyVRM itself
condemned it (an HA run is fencing or evacuating it: with BMC fencing a host is condemned
before Nova notices). An unanswered read proves nothing: the migration's own end or the
lifecycle timeout decide then.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.db import api as db_api
from keyvrm.drivers import errors
from keyvrm.model import snapshot as m
from keyvrm.model import states


def _down(cloud, host, keyvrm_state) -> Optional[str]:
    if keyvrm_state in states.HYPERVISOR_IN_HA_RUN:
        return "KeyVRM condemned it (state %s)" % keyvrm_state
    try:
        service = cloud.get_service(host)
    except errors.DriverError:
        return None
    if service.forced_down:
        return "its compute service is forced down"
    if service.state != m.SERVICE_UP:
        return "its compute service is %s" % service.state
    return None


def host_down(cloud, db, host) -> Optional[str]:
    """Why ``host`` will carry no more work (its compute service down, forced down, or KeyVRM fencing it), or None."""
    return _down(cloud, host, db_api.claimed_hypervisors(db).get(host))


def dead_end(cloud, db, migration_type, source, target) -> Optional[str]:
    """Why a migration from ``source`` to ``target`` cannot end now, or None.

    ``migration_type`` is Nova's (``evacuation``, ``live-migration``) or KeyVRM's action
    (``evacuate``, ``live_migrate``): an evacuation needs only its target alive (its
    source is dead by definition), a live migration both ends. One database read for
    both ends, then one Nova read per end.
    """
    ends = (("target", target),) if migration_type in ("evacuation", "evacuate") else \
        (("source", source), ("target", target))
    claimed = db_api.claimed_hypervisors(db)
    for role, host in ends:
        why = _down(cloud, host, claimed.get(host)) if host else None
        if why:
            return "the %s %s is down: %s" % (role, host, why)
    return None


def live_work(cloud, db, unfinished) -> list:
    """The ``unfinished`` migrations (``snapshot.Migration``) that may still end: none of their needed hosts is dead."""
    return [mig for mig in unfinished
            if dead_end(cloud, db, mig.migration_type, mig.source_host, mig.dest_host) is None]
