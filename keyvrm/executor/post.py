"""HA post-steps for an evacuated host: maintenance when it is empty, else error + stop requests.

SPEC 5.6: an empty host goes to maintenance (its compute service disabled with a
reason); a host where VMs remain (no_evac, no capacity, failed) gets the hypervisor
``error`` state in KeyVRM, no maintenance, and a stop request for each remaining VM. Each
stop is a ``stop`` recommendation of the event, journaled like any other, under the
lifecycle: the VM is locked ``stopping`` until Nova shows it SHUTOFF or the stopping
timeout passes (then ``stop_failed``, unlocked).
"""

from __future__ import annotations

import dataclasses
import uuid

from keyvrm.db import api as db_api
from keyvrm.drivers import errors
from keyvrm import exception
from keyvrm.executor import journal
from keyvrm.executor import runner
from keyvrm.executor import watch
from keyvrm.lifecycle import tracker

SHUTOFF = "SHUTOFF"


@dataclasses.dataclass(frozen=True)
class StopOutcome:
    """How one stop request of a remaining VM ended."""

    vm_id: str
    recommendation_id: str
    status: str  # succeeded | failed
    message: str


@dataclasses.dataclass(frozen=True)
class HostOutcome:
    """What the post-steps made of the host."""

    host: str
    state: str  # maintenance | error
    reason: str
    stops: tuple = ()


def finish_evacuated_host(db, cloud, host, event_id, remaining_vm_ids, *, clock, timeouts,
                          poll_interval_s=5.0) -> HostOutcome:
    """Put ``host`` in maintenance if nothing remains on it, else error state + stop each VM.

    ``timeouts`` are the lifecycle timeouts in seconds by state (``stopping`` is used).
    """
    remaining = list(remaining_vm_ids)
    if not remaining:
        reason = "KeyVRM: evacuated by event %s; maintenance" % event_id
        try:
            cloud.disable_service(host, reason)
        except errors.DriverError as error:
            reason = "evacuated, but its compute service could not be disabled: %s" % error
            db_api.set_hypervisor_state(db, host, "error", reason=reason, event_id=event_id)
            return HostOutcome(host, "error", reason)
        db_api.set_hypervisor_state(db, host, "maintenance", reason=reason, event_id=event_id)
        return HostOutcome(host, "maintenance", reason)
    reason = "%d VM(s) remain after the evacuation: %s" % (len(remaining), ", ".join(remaining))
    db_api.set_hypervisor_state(db, host, "error", reason=reason, event_id=event_id)
    stops = _StopRequests(db, cloud, host, event_id, clock, timeouts)
    for vm_id in remaining:
        stops.request(vm_id)
    return HostOutcome(host, "error", reason, tuple(stops.follow(poll_interval_s)))


class _StopRequests:
    """Stop requests for the VMs left on one host, asked one by one and followed together."""

    def __init__(self, db, cloud, host, event_id, clock, timeouts):
        self.db, self.cloud, self.host, self.event_id = db, cloud, host, event_id
        self.clock, self.timeouts = clock, timeouts
        self.pending = {}  # vm_id -> (recommendation id, journal, transition, started_s)
        self.done = []

    def _end(self, vm_id, rec_id, log, attempt_kind, status, message, error=None, started=None):
        log.write(attempt_kind, 1, message, error=error, started_s=started)
        db_api.set_recommendation_status(self.db, rec_id, status,
                                         reason=None if status == "succeeded" else message)
        self.done.append(StopOutcome(vm_id, rec_id, status, message))

    def request(self, vm_id):
        """Create the VM's stop recommendation, lock the VM ``stopping`` and ask Nova."""
        rec_id = db_api.create_recommendation(
            self.db, self.event_id, "stop", vm_id, self.host, None, auto_run=True,
            reason="remained on %s after the evacuation" % self.host)
        log = journal.Journal(self.db, rec_id, self.clock)
        started = self.clock.time()
        owner = runner.owner_prefix(rec_id) + uuid.uuid4().hex[:8]
        try:
            transition = tracker.begin(self.db, vm_id, "stop", owner,
                                       runner.as_datetime(started), self.timeouts,
                                       desired_status=SHUTOFF, recommendation_id=rec_id)
        except exception.VMLocked as locked:
            log.write("cancel", 0, str(locked), started_s=started)
            db_api.set_recommendation_status(self.db, rec_id, "cancelled", reason=str(locked))
            self.done.append(StopOutcome(vm_id, rec_id, "cancelled", str(locked)))
            return
        db_api.set_recommendation_status(self.db, rec_id, "running")
        log.write("start", 0, "stop of VM %s left on %s" % (vm_id, self.host), started_s=started)
        try:
            self.cloud.stop_server(vm_id)
        except errors.CloudError as error:
            now = runner.as_datetime(self.clock.time())
            if error.status_code == 409 and "vm_state stopped" in str(error):
                tracker.finish(self.db, transition, now, True, self.host, SHUTOFF,
                               message="already stopped")
                return self._end(vm_id, rec_id, log, "success", "succeeded", "VM already SHUTOFF",
                                 started=started)
            tracker.not_delivered(self.db, transition, now, error)
            return self._end(vm_id, rec_id, log, "error", "failed", "stop refused", error, started)
        except errors.DriverError as error:
            tracker.not_delivered(self.db, transition, runner.as_datetime(self.clock.time()), error)
            return self._end(vm_id, rec_id, log, "error", "failed", "stop not delivered", error,
                             started)
        log.write("execute", 1, "stop accepted", started_s=started)
        self.pending[vm_id] = (rec_id, log, transition, started)

    def follow(self, poll_interval_s):
        """Poll the VMs until each is SHUTOFF or its stopping deadline passes; all outcomes."""
        while self.pending:
            deadline = min(runner.as_posix(t.deadline_at) for _, _, t, _ in self.pending.values())
            try:
                servers = {vm.id: vm for vm in self.cloud.list_servers()}
            except errors.DriverError:
                servers = {}
            now = self.clock.time()
            for vm_id, (rec_id, log, transition, started) in list(self.pending.items()):
                vm = servers.get(vm_id)
                if vm is not None and vm.status == SHUTOFF and vm.task_state is None:
                    tracker.finish(self.db, transition, runner.as_datetime(now), True, vm.host,
                                   vm.status, message="stopped")
                    self._end(vm_id, rec_id, log, "success", "succeeded", "VM SHUTOFF on %s" % vm.host,
                              started=started)
                elif now >= runner.as_posix(transition.deadline_at):
                    seen = "%s/%s" % (vm.status, vm.task_state) if vm is not None else "unknown"
                    message = "not SHUTOFF by the stopping timeout (status %s)" % seen
                    tracker.finish(self.db, transition, runner.as_datetime(now), False,
                                   vm.host if vm else None, vm.status if vm else None,
                                   message=message)
                    self._end(vm_id, rec_id, log, "error", "failed", message, started=started)
                else:
                    continue
                del self.pending[vm_id]
            if self.pending:
                # At the deadline this returns at once and the next pass ends what is overdue.
                watch.wait_interval(self.clock, poll_interval_s, deadline)
        return self.done
