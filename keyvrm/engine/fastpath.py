"""The HA fast path: a host whose heartbeat goes stale or whose compute service goes down is judged at once.

SPEC 5.8. The schedule runs a cycle every ``period``; a dead host would wait for the next
one. The watch looks every ``[ha] watch_interval`` seconds at the two signals the HA
matrix weighs (one Nova ``os-services`` read and one heartbeat scan, whatever the number
of hosts) and reports the hosts whose signal turned bad since its last look. The engine
then starts a FastFlow for them at once (``keyvrm.flows.fast``: their aggregates from the
newest snapshot with fresh reads, not a whole-region harvest; the same decision matrix
and the same fencing as any cycle) -- the watch itself decides nothing and fences nothing. A host that
is still bad is not reported again, so a host that stays dead starts one cycle per signal,
not one per look. A read that fails keeps the last known state of that signal.
"""

from __future__ import annotations

from typing import Optional

from oslo_log import log as logging

from keyvrm.drivers import errors

LOG = logging.getLogger(__name__)


class FailureWatch:
    """Remembers which hosts were down (compute service) and stale (heartbeat) at the last look."""

    def __init__(self, cloud, heartbeat, clock, stale_after_s: float):
        self._cloud = cloud
        self._heartbeat = heartbeat
        self._clock = clock
        self._stale_after_s = stale_after_s
        self._down: Optional[frozenset] = None
        self._stale: Optional[frozenset] = None

    def _services_down(self) -> Optional[frozenset]:
        try:
            return frozenset(s.host for s in self._cloud.list_compute_services() if not s.is_up)
        except errors.DriverError as error:
            LOG.warning("fast path: compute services not read (%s); keeping the last known states", error)
            return None

    def _heartbeats_stale(self) -> Optional[frozenset]:
        if self._heartbeat is None:
            return None
        try:
            beats = self._heartbeat.last_heartbeats()
        except errors.DriverError as error:
            LOG.warning("fast path: heartbeats not read (%s); keeping the last known states", error)
            return None
        now_s = self._clock.time()
        return frozenset(host for host, at_s in beats.items() if now_s - at_s > self._stale_after_s)

    def look(self) -> dict:
        """Hosts whose signal turned bad since the last look: {host: "compute service down" | "heartbeat stale"}.

        The first look only learns the current states (hosts already bad are the periodic
        cycle's, which already judges them).
        """
        turned = {}
        for attr, now_bad, what in (("_down", self._services_down(), "compute service down"),
                                    ("_stale", self._heartbeats_stale(), "heartbeat stale")):
            if now_bad is None:
                continue
            before = getattr(self, attr)
            if before is not None:
                for host in now_bad - before:
                    turned[host] = "%s, %s" % (turned[host], what) if host in turned else what
            setattr(self, attr, now_bad)
        return turned
