"""HA post-steps for an evacuated host: maintenance when it is empty, else error + what to do with the rest.

SPEC 5.6: an empty host goes to maintenance (its compute service disabled with a
reason); a host where VMs remain (no_evac, no capacity, failed) gets the hypervisor
``error`` state in KeyVRM and no maintenance. Its remaining VMs are already down when
the fence powered the host off (BMC) or Nova forced its compute service down: that is
recorded in each VM's history, and nothing is sent to Nova (a stop cast to a dead
compute is accepted and never carried out). Only when the fence left the host running
(Ceph blocklist alone) and its compute service is up can a stop take effect: each such
stop is a ``stop`` recommendation of the event, journaled like any other, under the
lifecycle (the VM is locked ``stopping`` until Nova shows it SHUTOFF, the stopping
timeout passes, or an operator cancels it).
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid

from keyvrm.db import api as db_api
from keyvrm.drivers import errors
from keyvrm import exception
from keyvrm.executor import journal
from keyvrm.executor import runner
from keyvrm.executor import watch
from keyvrm.lifecycle import tracker
from keyvrm.model import states

SHUTOFF = "SHUTOFF"
# Fencers whose confirmation means the host's VMs are not running any more.
POWER_FENCERS = ("ipmi", "redfish", "nova")
DOWN_WITH_HOST = "down_with_host"
# a stop's journal line and the recommendation status it ends in go together
_OP, _REC = states.OperationKind, states.RecommendationStatus


@dataclasses.dataclass(frozen=True)
class StopOutcome:
    """How one stop request of a remaining VM ended."""

    vm_id: str
    recommendation_id: str
    status: str  # succeeded | failed | cancelled
    message: str


@dataclasses.dataclass(frozen=True)
class HostOutcome:
    """What the post-steps made of the host and of the VMs left on it."""

    host: str
    state: str  # maintenance | error
    reason: str
    stops: tuple = ()
    down_vm_ids: tuple = ()  # recorded as down with the fenced host, nothing sent to Nova


def why_vms_are_down(db, cloud, host):
    """Why the VMs left on fenced ``host`` are already down (None if a stop can take effect).

    They are down when a power fencer (BMC, Nova force-down) confirmed the fence, or when
    the host's compute service is not up (a stop would never be carried out).
    """
    fencing = db_api.get_hypervisor_state(db, host)["fencing"] or []
    powered = sorted({r.get("fencer") for r in fencing if r.get("confirmed") and r.get("fencer") in POWER_FENCERS})
    if powered:
        return "host %s was fenced (%s confirmed)" % (host, ", ".join(powered))
    try:
        service = cloud.get_service(host)
    except errors.DriverError as error:
        return "the compute service of %s could not be read (%s)" % (host, error)
    if not service.is_up:
        return "the compute service of %s is %s" % (host, "forced down" if service.forced_down else service.state)
    return None


def finish_evacuated_host(db, cloud, host, event_id, remaining_vm_ids, *, clock, timeouts,
                          poll_interval_s=5.0) -> HostOutcome:
    """Put ``host`` in maintenance if nothing remains on it, else error state; record or stop each VM.

    ``timeouts`` are the lifecycle timeouts in seconds by state (``stopping`` is used).
    A re-run (after a restart) finds the stops this event already asked for.
    """
    remaining = list(remaining_vm_ids)
    if not remaining:
        reason = "KeyVRM: evacuated by event %s; maintenance" % event_id
        try:
            cloud.disable_service(host, reason)
        except errors.DriverError as error:
            reason = "evacuated, but its compute service could not be disabled: %s" % error
            db_api.set_hypervisor_state(db, host, states.HypervisorState.ERROR, reason=reason, event_id=event_id)
            return HostOutcome(host, states.HypervisorState.ERROR, reason)
        db_api.set_hypervisor_state(db, host, states.HypervisorState.MAINTENANCE, reason=reason, event_id=event_id)
        return HostOutcome(host, states.HypervisorState.MAINTENANCE, reason)
    down_because = why_vms_are_down(db, cloud, host)
    reason = "%d VM(s) remain after the evacuation: %s" % (len(remaining), ", ".join(remaining))
    if down_because is not None:
        reason += "; down with the host (%s): no stop sent to Nova" % down_because
        db_api.set_hypervisor_state(db, host, states.HypervisorState.ERROR, reason=reason, event_id=event_id)
        now = runner.as_datetime(clock.time())
        message = "left on fenced host %s by event %s; down with the host: %s" % (host, event_id, down_because)
        for vm_id in remaining:
            if not any(e["status"] == DOWN_WITH_HOST and e["message"] == message
                       for e in db_api.list_vm_history(db, vm_id)):
                db_api.add_vm_history(db, vm_id, "stop", DOWN_WITH_HOST, now, now, message=message)
        return HostOutcome(host, states.HypervisorState.ERROR, reason, down_vm_ids=tuple(remaining))
    reason += "; stop requested (the fence left the host running)"
    db_api.set_hypervisor_state(db, host, states.HypervisorState.ERROR, reason=reason, event_id=event_id)
    stops = _StopRequests(db, cloud, host, event_id, clock, timeouts)
    asked = {r["vm_id"]: r for r in db_api.list_recommendations(db, event_id=event_id) if r["action"] == "stop"}
    for vm_id in remaining:
        if vm_id in asked:
            stops.adopt(asked[vm_id])
        else:
            stops.request(vm_id)
    return HostOutcome(host, states.HypervisorState.ERROR, reason, tuple(stops.follow(poll_interval_s)))


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
                                         reason=None if status == _REC.SUCCEEDED else message)
        self.done.append(StopOutcome(vm_id, rec_id, status, message))

    def request(self, vm_id):
        """Create the VM's stop recommendation, lock the VM ``stopping`` and ask Nova."""
        rec_id = db_api.create_recommendation(
            self.db, self.event_id, "stop", vm_id, self.host, None, auto_run=True,
            reason="remained on %s after the evacuation" % self.host)
        self._ask(vm_id, rec_id)

    def adopt(self, rec):
        """Take up a stop this event asked for before a restart: its outcome, or follow it again."""
        vm_id, rec_id = rec["vm_id"], rec["id"]
        if rec["status"] == _REC.CREATED:
            return self._ask(vm_id, rec_id)
        if rec["status"] != _REC.RUNNING:
            self.done.append(StopOutcome(vm_id, rec_id, rec["status"], rec["reason"] or rec["status"]))
            return
        log = journal.Journal(self.db, rec_id, self.clock)
        state = db_api.get_vm_state(self.db, vm_id)
        if not (state["locked"] and (state["lock_owner"] or "").startswith(runner.owner_prefix(rec_id))):
            return self._end(vm_id, rec_id, log, _OP.ERROR, _REC.FAILED, "the VM's lock was released while the "
                             "engine was down; the stop is not followed any more")
        # began at deadline - timeout, on the injected clock that set the deadline
        started_at = state["deadline_at"] - datetime.timedelta(seconds=self.timeouts["stopping"])
        transition = tracker.Transition(vm_id, "stop", state["lock_owner"], started_at, state["deadline_at"], rec_id)
        self.pending[vm_id] = (rec_id, log, transition, runner.as_posix(started_at))

    def _ask(self, vm_id, rec_id):
        log = journal.Journal(self.db, rec_id, self.clock)
        started = self.clock.time()
        owner = runner.owner_prefix(rec_id) + uuid.uuid4().hex[:8]
        try:
            transition = tracker.begin(self.db, vm_id, "stop", owner,
                                       runner.as_datetime(started), self.timeouts,
                                       desired_status=SHUTOFF, recommendation_id=rec_id)
        except exception.VMLocked as locked:
            log.write(_OP.CANCEL, 0, str(locked), started_s=started)
            db_api.set_recommendation_status(self.db, rec_id, _REC.CANCELLED, reason=str(locked))
            self.done.append(StopOutcome(vm_id, rec_id, _REC.CANCELLED, str(locked)))
            return
        db_api.set_recommendation_status(self.db, rec_id, _REC.RUNNING)
        log.write("start", 0, "stop of VM %s left on %s" % (vm_id, self.host), started_s=started)
        try:
            self.cloud.stop_server(vm_id)
        except errors.CloudError as error:
            now = runner.as_datetime(self.clock.time())
            if error.status_code == 409 and "vm_state stopped" in str(error):
                tracker.finish(self.db, transition, now, True, self.host, SHUTOFF,
                               message="already stopped")
                return self._end(vm_id, rec_id, log, _OP.SUCCESS, _REC.SUCCEEDED, "VM already SHUTOFF",
                                 started=started)
            tracker.not_delivered(self.db, transition, now, error)
            return self._end(vm_id, rec_id, log, _OP.ERROR, _REC.FAILED, "stop refused", error, started)
        except errors.DriverError as error:
            tracker.not_delivered(self.db, transition, runner.as_datetime(self.clock.time()), error)
            return self._end(vm_id, rec_id, log, _OP.ERROR, _REC.FAILED, "stop not delivered", error,
                             started)
        log.write("execute", 1, "stop accepted", started_s=started)
        self.pending[vm_id] = (rec_id, log, transition, started)

    def _read(self, vm_id):
        try:
            return self.cloud.get_server(vm_id)
        except errors.DriverError:
            return None

    def follow(self, poll_interval_s):
        """Poll the VMs until each is SHUTOFF, its stopping deadline passes or an operator cancels it."""
        while self.pending:
            deadline = min(runner.as_posix(t.deadline_at) for _, _, t, _ in self.pending.values())
            for vm_id, (rec_id, log, transition, started) in list(self.pending.items()):
                cancel = journal.cancel_request(db_api.list_operations(self.db, rec_id))
                vm = None if cancel else self._read(vm_id)
                now = self.clock.time()
                if cancel:
                    tracker.not_delivered(self.db, transition, runner.as_datetime(now), "cancelled: %s" % cancel)
                    self._end(vm_id, rec_id, log, _OP.CANCEL, _REC.CANCELLED, cancel, started=started)
                elif vm is not None and vm.status == SHUTOFF and vm.task_state is None:
                    tracker.finish(self.db, transition, runner.as_datetime(now), True, vm.host,
                                   vm.status, message="stopped")
                    self._end(vm_id, rec_id, log, _OP.SUCCESS, _REC.SUCCEEDED, "VM SHUTOFF on %s" % vm.host,
                              started=started)
                elif now >= runner.as_posix(transition.deadline_at):
                    seen = "%s/%s" % (vm.status, vm.task_state) if vm is not None else "unknown"
                    message = "not SHUTOFF by the stopping timeout (status %s)" % seen
                    tracker.finish(self.db, transition, runner.as_datetime(now), False,
                                   vm.host if vm else None, vm.status if vm else None,
                                   message=message)
                    self._end(vm_id, rec_id, log, _OP.ERROR, _REC.FAILED, message, started=started)
                else:
                    continue
                del self.pending[vm_id]
            if self.pending:
                # At the deadline this returns at once and the next pass ends what is overdue.
                watch.wait_interval(self.clock, poll_interval_s, deadline)
        return self.done
