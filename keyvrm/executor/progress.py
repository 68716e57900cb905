"""Whether work in flight can still end: a migration whose target (or, live, either end) died cannot.

Nova writes nothing for a nova-compute that is dead: an evacuation whose rebuild cast went
to a dead target stays ``accepted`` for ever, one whose target died mid-rebuild stays
``pre-migrating``, and a live migration with a dead end never completes. A host is dead
for this when Nova shows its compute service down or forced down, or when KeyVRM itself
condemned it (an HA run is fencing or evacuating it: with BMC fencing a host is condemned
before Nova notices). An unanswered read proves nothing: the migration's own end or the
lifecycle timeout decide then.

A run following its migration asks every poll (``EndWatch``): KeyVRM's own condemned
state is one database read and is read each time; Nova's compute services are asked at
most every ``NOVA_CHECK_INTERVAL_S``, since Nova itself marks a service down only
``service_down_time`` (60 s by default) after its last report.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.db import api as db_api
from keyvrm.drivers import errors
from keyvrm.model import snapshot as m
from keyvrm.model import states

# how often a run following a migration asks Nova for its ends' compute services: a sixth of
# Nova's default service_down_time, so a dead end is noticed at most 10 s after Nova says so
NOVA_CHECK_INTERVAL_S = 10.0


def _condemned(keyvrm_state) -> Optional[str]:
    if keyvrm_state in states.HYPERVISOR_IN_HA_RUN:
        return "KeyVRM condemned it (state %s)" % keyvrm_state
    return None


def _service_down(cloud, host) -> Optional[str]:
    try:
        service = cloud.get_service(host)
    except errors.DriverError:
        return None
    if service.forced_down:
        return "its compute service is forced down"
    if service.state != m.SERVICE_UP:
        return "its compute service is %s" % service.state
    return None


def _needed_ends(migration_type, source, target):
    """The hosts a migration needs alive: an evacuation only its target (its source is dead), else both ends."""
    ends = (("target", target),) if migration_type in ("evacuation", "evacuate") else \
        (("source", source), ("target", target))
    return [(role, host) for role, host in ends if host]


class EndWatch:
    """One run's repeated question "can my migration still end?", asked at every poll.

    KeyVRM's condemned state is read at every call; Nova's compute services at the first
    call and then at most every ``interval_s`` (``NOVA_CHECK_INTERVAL_S``) of ``clock``;
    with ``interval_s`` 0, at every call.
    """

    def __init__(self, cloud, db, clock, interval_s=NOVA_CHECK_INTERVAL_S):
        self.cloud, self.db, self.clock, self.interval_s = cloud, db, clock, interval_s
        self._nova_asked_s = None

    def _ask_nova_now(self) -> bool:
        now = self.clock.time()
        if self._nova_asked_s is not None and now - self._nova_asked_s < self.interval_s:
            return False
        self._nova_asked_s = now
        return True

    def dead_end(self, migration_type, source, target) -> Optional[str]:
        """Why a migration from ``source`` to ``target`` cannot end now, or None.

        ``migration_type`` is Nova's (``evacuation``, ``live-migration``) or KeyVRM's action
        (``evacuate``, ``live_migrate``). One database read for both ends; when neither is
        condemned and Nova is due, one Nova read per end.
        """
        claimed = db_api.claimed_hypervisors(self.db)
        ends = _needed_ends(migration_type, source, target)
        for role, host in ends:
            why = _condemned(claimed.get(host))
            if why:
                return "the %s %s is down: %s" % (role, host, why)
        if not self._ask_nova_now():
            return None
        for role, host in ends:
            why = _service_down(self.cloud, host)
            if why:
                return "the %s %s is down: %s" % (role, host, why)
        return None

    def host_down(self, host) -> Optional[str]:
        """Why ``host`` will carry no more work (KeyVRM fencing it, its compute service down), or None.

        Nova is asked at most every interval.
        """
        why = _condemned(db_api.claimed_hypervisors(self.db).get(host))
        if why or not self._ask_nova_now():
            return why
        return _service_down(self.cloud, host)


def live_work(cloud, db, clock, unfinished) -> list:
    """The ``unfinished`` migrations (``snapshot.Migration``) that may still end: none of their needed hosts is dead.

    A one-off question: Nova is asked about every migration's ends, not at the pace of a poll.
    """
    ends = EndWatch(cloud, db, clock, interval_s=0.0)
    return [mig for mig in unfinished
            if ends.dead_end(mig.migration_type, mig.source_host, mig.dest_host) is None]
