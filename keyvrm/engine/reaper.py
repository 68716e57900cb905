"""Conductor liveness and the reaper: jobs of a dead conductor go back on the board.

TaskFlow's jobboard claims never expire: a conductor killed mid-job owns that job
forever. So every engine keeps a liveness key (``<namespace>:conductor:<name>``, with a
TTL) refreshed well within the TTL, and a reaper in every engine abandons any claimed
job whose owner's key has expired; another conductor then claims and resumes it.
"""

from __future__ import annotations

import dataclasses
import logging

from taskflow import exceptions as taskflow_exc

LOG = logging.getLogger(__name__)


class Liveness:
    """Liveness keys of conductors in Redis."""

    def __init__(self, client, namespace: str, ttl_s: int):
        self._client = client
        self._namespace = namespace
        self.ttl_s = ttl_s

    def key(self, name: str) -> str:
        return "%s:conductor:%s" % (self._namespace, name)

    def beat(self, name: str) -> bool:
        """Refresh ``name``'s key for another TTL; False when it had expired (others may have reaped us)."""
        previous = self._client.set(self.key(name), "alive", ex=self.ttl_s, get=True)
        return previous is not None

    def is_alive(self, name: str) -> bool:
        """Whether ``name`` refreshed its key within the last TTL."""
        return bool(self._client.exists(self.key(name)))

    def clear(self, name: str) -> None:
        """Drop ``name``'s key (a conductor that stopped cleanly)."""
        self._client.delete(self.key(name))


@dataclasses.dataclass(frozen=True)
class Reaped:
    """One job handed back to the board: which, and whose it was."""

    job_uuid: str
    owner: str


def owner_of(jobboard, job):
    """The conductor that claimed ``job`` (None: unclaimed).

    TaskFlow's Redis jobboard raises TypeError decoding the missing owner of an unclaimed job.
    """
    try:
        return jobboard.find_owner(job)
    except TypeError:
        return None


def reap(jobboard, liveness, self_name: str) -> list[Reaped]:
    """Abandon every claimed job whose owner is not alive (never this conductor's own jobs)."""
    reaped = []
    for job in jobboard.iterjobs(ensure_fresh=True):
        owner = owner_of(jobboard, job)
        if not owner or owner == self_name or liveness.is_alive(owner):
            continue
        try:
            jobboard.abandon(job, owner)
        except (taskflow_exc.NotFound, taskflow_exc.JobFailure) as exc:
            LOG.debug("job %s changed while reaping it: %s", job.uuid, exc)
            continue
        LOG.warning("abandoned job %s (%s) of conductor %s, whose liveness key expired",
                    job.uuid, job.name, owner)
        reaped.append(Reaped(job.uuid, owner))
    return reaped


def release_own(jobboard, self_name: str) -> list[str]:
    """Abandon the jobs still claimed under this conductor's name from a previous life; their uuids."""
    released = []
    for job in jobboard.iterjobs(ensure_fresh=True):
        if owner_of(jobboard, job) != self_name:
            continue
        try:
            jobboard.abandon(job, self_name)
        except (taskflow_exc.NotFound, taskflow_exc.JobFailure):
            continue
        released.append(job.uuid)
    return released
