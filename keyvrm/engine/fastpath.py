"""The HA fast path: a host whose heartbeat goes stale or whose compute service goes down is judged at once.

SPEC 5.8. The schedule runs a cycle every ``period``; a dead host would wait for the next
one. The watch looks every ``[ha] watch_interval`` seconds at the two signals the HA
matrix weighs (one Nova ``os-services`` read and one heartbeat scan, whatever the number
of hosts) and reports the hosts whose signal turned bad since its last look. The engine
then starts a FastFlow for them at once (``keyvrm.flows.fast``: their aggregates from the
newest snapshot with fresh reads, not a whole-region harvest; the same decision matrix
and the same fencing as any cycle) -- the watch itself decides nothing and fences nothing. A host that
is still bad is not reported again, so a host that stays dead starts one cycle per signal,
not one per look. A read that fails keeps the last known state of that signal; a source's
outage is logged once when it begins and once when it ends, not at every look.
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
        self._unread = {}  # source -> when its reads began to fail (its outage), while they do

    def _read(self, source, read):
        """``read()``, or None when it fails: an outage of ``source`` is logged when it begins and when it ends."""
        try:
            value = read()
        except errors.DriverError as error:
            if source not in self._unread:
                self._unread[source] = self._clock.time()
                LOG.warning("fast path: %s not read (%s); keeping the last known states until they are "
                            "read again (logged once per outage)", source, error)
            return None
        began = self._unread.pop(source, None)
        if began is not None:
            LOG.warning("fast path: %s read again after %.0f s", source, self._clock.time() - began)
        return value

    def _services_down(self) -> Optional[frozenset]:
        services = self._read("compute services", self._cloud.list_compute_services)
        return None if services is None else frozenset(s.host for s in services if not s.is_up)

    def _heartbeats_stale(self) -> Optional[frozenset]:
        if self._heartbeat is None:
            return None
        beats = self._read("heartbeats", self._heartbeat.last_heartbeats)
        if beats is None:
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
