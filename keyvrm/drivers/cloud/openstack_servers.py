"""The region's servers kept by Nova's ``changes-since``: one full read, then only what changed.

Nova bumps a server's ``updated_at`` on every write of its record (checked on Nova 34:
metadata set and update, rename, boot, delete), and ``changes-since`` (inclusive) also
returns the servers deleted since, with status ``DELETED``. So the list of a full read,
merged with later ``changes-since`` reads, is the full list, provided that:

- each read asks from the newest ``updated`` seen so far less ``OVERLAP_S``: a write's
  timestamp is taken before its transaction commits, by the clock of whichever Nova
  host wrote it, so a later commit can carry an earlier time;
- every server is read again every ``full_read_interval_s``: a deleted server whose row
  was archived (``nova-manage db archive_deleted_rows``) before a read saw it would
  otherwise stay listed;
- server group membership is joined at every read, not kept: deleting a group with its
  members writes no server.

A steady cycle then costs the pages of the servers changed within ``OVERLAP_S`` seconds
of the newest change (usually one request) instead of every server's page. Parsed servers are kept
between reads (~550 bytes of heap each).
"""

from __future__ import annotations

import threading
from typing import Callable, Optional

from keyvrm.drivers.cloud import openstack_parse as parse
from keyvrm.model import snapshot as m

OVERLAP_S = 60.0
DELETED = "DELETED"


class ServerList:
    """Every server, from ``read(params)`` (all pages of ``/servers/detail`` with ``params``)."""

    def __init__(self, read: Callable[[dict], list], clock, full_read_interval_s: float):
        self._read = read
        self._clock = clock
        self.full_read_interval_s = full_read_interval_s
        self._lock = threading.Lock()
        self._vms = {}  # server id -> VM without its group (joined per read)
        self._newest_s: Optional[float] = None  # newest ``updated`` seen (Nova's clock), None: read all
        self._full_read_at = 0.0

    def _needs_full_read(self, now_s) -> bool:
        return (self._newest_s is None or not self.full_read_interval_s
                or now_s - self._full_read_at >= self.full_read_interval_s)

    def servers(self, groups_by_member: dict) -> list:
        """Every server now, each with its server group from ``groups_by_member``."""
        with self._lock:
            now_s = self._clock.time()
            if self._needs_full_read(now_s):
                bodies, vms, newest_s = self._read({}), {}, None
                self._full_read_at = now_s
            else:
                since = parse.iso(self._newest_s - OVERLAP_S)
                bodies, vms, newest_s = self._read({"changes-since": since}), dict(self._vms), self._newest_s
            for body in bodies:
                if body.get("status") == DELETED:
                    vms.pop(body["id"], None)
                else:
                    vms[body["id"]] = parse.server(body, {})
                updated_s = parse.posix(body.get("updated"))
                if updated_s is not None and (newest_s is None or updated_s > newest_s):
                    newest_s = updated_s
            self._vms, self._newest_s = vms, newest_s
        return [_with_group(vm, groups_by_member.get(vm.id)) for vm in vms.values()]


def _with_group(vm, group_id):
    return vm if group_id is None else m.replace(vm, server_group_id=group_id)
