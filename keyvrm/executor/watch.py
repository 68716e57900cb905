"""Waiting on the cloud: poll a migration record or a server's status until it settles.

Every wait takes the injected clock and a deadline (clock seconds, from the lifecycle
timeout); an unanswered poll is logged and the polling goes on until the deadline.
"""

from __future__ import annotations

from typing import Optional

from oslo_log import log as logging

from keyvrm.drivers import errors
from keyvrm.executor import prepare
from keyvrm.model import snapshot as m

LOG = logging.getLogger(__name__)

SUCCEEDED = frozenset(("done", "completed", "confirmed"))  # evacuation, live, cold migration
FINAL = SUCCEEDED | frozenset(("error", "failed", "cancelled", "reverted"))
# A cold migration Nova has finished: the VM is VERIFY_RESIZE on its target until confirmed (executor.confirm).
AWAITING_CONFIRM = frozenset(("finished",))


def _transient(error) -> bool:
    return isinstance(error, errors.DriverError) and error.retryable


def wait_interval(clock, interval_s, deadline_s) -> bool:
    """Sleep one interval (not past the deadline); False once the deadline has come."""
    remaining = deadline_s - clock.time()
    if remaining <= 0:
        return False
    clock.sleep(min(interval_s, remaining))
    return True


class Abandoned(Exception):
    """A wait given up before its end: ``kind`` (``CANCEL``, ``UNLOCKED``, ``TARGET_DOWN``) and why."""

    def __init__(self, kind, reason, last=None):
        super().__init__(reason)
        self.kind, self.reason, self.last = kind, reason, last


CANCEL, UNLOCKED, TARGET_DOWN = "cancel", "unlocked", "target_down"


def _poll(read, settled, what, clock, interval_s, deadline_s, abandon=None):
    """Call ``read`` each interval until ``settled(result)``; (last result, settled?).

    ``abandon()`` is asked after each unsettled read: an ``Abandoned`` it returns is raised.
    """
    last = None
    while True:
        try:
            last = read()
            if settled(last):
                return last, True
        except errors.DriverError as error:
            if not _transient(error):
                raise
            LOG.warning("%s: poll unanswered (%s); polling on", what, error)
        given_up = abandon() if abandon is not None else None
        if given_up is not None:
            given_up.last = last
            raise given_up
        if not wait_interval(clock, interval_s, deadline_s):
            return last, False


class _Followed:
    """The record a poll follows: ``migration_id``, or the older ``accepted`` one Nova carries it on.

    Nova's conductor and the target's compute carry an evacuation on the server's oldest
    ``accepted`` evacuation record (``Migration.get_by_instance_and_status``): after an
    evacuation whose rebuild cast went to a dead target, a new one moves that old record
    (it takes the new target) while the new record stays ``accepted`` for ever. Of
    ``carriers`` (those older records) and ``migration_id``, the first that leaves
    ``accepted`` is followed from then on; ``on_carried(id)`` is told when it is an older one.
    """

    def __init__(self, cloud, migration_id, server_id, carriers, on_carried):
        self.cloud, self.id, self.server_id = cloud, migration_id, server_id
        self.waiting, self.on_carried = tuple(carriers), on_carried

    def read(self) -> m.Migration:
        if not self.waiting:
            return self.cloud.get_migration(self.id, self.server_id)
        records = {mig.id: mig for mig in self.cloud.list_server_migrations(self.server_id)}
        ours = records.get(int(self.id))
        if ours is None:
            raise errors.NotFoundInCloud("Migration %s could not be found." % self.id)
        moved = [records[i] for i in self.waiting if i in records and records[i].status != "accepted"]
        if ours.status != "accepted" or not moved:
            self.waiting = () if ours.status != "accepted" else self.waiting
            return ours
        carrier = min(moved, key=lambda mig: mig.id)
        self.id, self.waiting = carrier.id, ()
        if self.on_carried is not None:
            self.on_carried(carrier.id)
        return carrier


def poll_migration(cloud, migration_id, clock, interval_s, deadline_s, server_id=None,
                   abandon=None, carriers=(), on_carried=None) -> Optional[m.Migration]:
    """The migration record of ``server_id`` once it is final or awaits its confirmation; None at the deadline.

    ``carriers``: the server's older ``accepted`` evacuations Nova may carry this one on
    (``_Followed``; ``on_carried(id)`` is told which). ``NotFoundInCloud`` (the record
    vanished) and other non-transient errors propagate, as does the ``Abandoned`` that
    ``abandon()`` returns between polls.
    """
    followed = _Followed(cloud, migration_id, server_id, carriers, on_carried)
    migration, final = _poll(followed.read, lambda mig: mig.status in FINAL | AWAITING_CONFIRM,
                             "migration %s" % migration_id,
                             clock, interval_s, deadline_s, abandon)
    return migration if final else None


def poll_server_status(cloud, vm_id, wanted_status, clock, interval_s, deadline_s, abandon=None
                       ) -> Optional[m.VM]:
    """The server once it shows ``wanted_status`` with no task; else the last read at the deadline.

    The ``Abandoned`` that ``abandon()`` returns between polls propagates.
    """
    server, _ = _poll(lambda: prepare.server(cloud, vm_id),
                      lambda vm: vm is not None and vm.status == wanted_status
                      and vm.task_state is None, "VM %s" % vm_id, clock, interval_s, deadline_s, abandon)
    return server


def migration_to_adopt(cloud, vm_id, source_host, target_host) -> Optional[m.Migration]:
    """The migration a resumed run follows instead of asking Nova again, if any.

    The newest migration of the VM that has not ended; else the newest that took it from
    ``source_host`` to ``target_host``: Nova accepted it but the run was interrupted (a
    crash, a lost database) before it recorded the answer. Following it checks where the
    VM is, so an old record that does not match today's placement is not taken for success.
    """
    mine = [mig for mig in cloud.list_migrations() if mig.server_id == vm_id]
    running = [mig for mig in mine if mig.status not in FINAL]
    if running:
        return max(running, key=lambda mig: mig.id)
    ours = [mig for mig in mine if mig.source_host == source_host and mig.dest_host == target_host]
    return max(ours, key=lambda mig: mig.id) if ours else None
