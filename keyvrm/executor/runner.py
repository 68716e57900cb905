"""Run one recommendation to a final status: lock, prepare, execute, poll, retry, record.

Steps (SPEC 7, lifecycle rules of SPEC 8): the VM's lock is taken with the lifecycle
(``VM is locked`` -> cancelled with the holder named); each attempt prepares from a
fresh read (VM still on the source, in a state that allows the action, target up,
enabled and with room; else cancelled with the reason), asks Nova (evacuate to the named
target; live-migrate with block migration ``auto``; cold-migrate, confirmed once Nova has
finished it: ``keyvrm.executor.confirm``) and polls the migration record until it ends or
the lifecycle deadline passes. A failed attempt is classified
(``keyvrm.executor.classify``; a migration that ended badly carries Nova's fault message,
which the journal's error keeps): known leftovers are cleaned up, then the next attempt
runs, up to ``max_attempts``, stopping early on a fatal error (e.g. Nova's scheduler
refusing the target, "No valid host was found": that target is not asked again, HA's
round 2 gives the VM another) or when the same error repeats ``max_repeated_errors``
times in a row. An evacuated VM that was ACTIVE is
started afterwards (Nova >= 2.95 leaves it SHUTOFF). Every step writes an operation
row; a final error raises an alert.

Lock owners are ``executor:<recommendation id>:<run token>``, so a run can tell a lock
of its own recommendation (another run of it, or one that crashed) from another
action's. Called again for a ``running`` recommendation (the engine resumes flows after
a crash), a run takes the lock over from the crashed one and carries on from the
journal: it polls the migration already started instead of starting another.
"""

from __future__ import annotations

import datetime
import threading
from typing import Optional
import uuid

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.drivers.cloud import base as cloud_base
from keyvrm.drivers import errors
from keyvrm import exception
from keyvrm.executor import classify
from keyvrm.executor import cleanup
from keyvrm.executor import confirm
from keyvrm.executor import inflight
from keyvrm.executor import journal
from keyvrm.executor import order
from keyvrm.executor import prepare
from keyvrm.executor import progress
from keyvrm.executor.settings import ExecutorSettings  # noqa: F401 (the contract names it here)
from keyvrm.executor import watch
from keyvrm.lifecycle import states
from keyvrm.lifecycle import tracker
from keyvrm.model import states as model_states

LOG = logging.getLogger(__name__)

ACTIVE = "ACTIVE"
SHUTOFF = "SHUTOFF"


def owner_prefix(recommendation_id) -> str:
    """The start of every lock owner a run of this recommendation uses."""
    return "executor:%s:" % recommendation_id


def recommendation_of_owner(owner):
    """The recommendation id in a lock owner that ``owner_prefix`` began, else None."""
    kind, _, rest = (owner or "").partition(":")
    rec_id, _, _token = rest.rpartition(":")
    return rec_id or None if kind == "executor" else None


# Naive UTC datetime of a clock reading (the form the lifecycle and DB store).
as_datetime = models.as_stored_time


def as_posix(naive_utc) -> float:
    """POSIX seconds of a naive UTC datetime (the inverse of ``as_datetime``)."""
    return naive_utc.replace(tzinfo=datetime.timezone.utc).timestamp()


# Recommendations a run of this process carries on now. A second run started meanwhile (an
# operator's "run" cast beside the cycle's dispatch) leaves it alone: without this it would
# read the recommendation ``running``, take the live run's lock as a crashed run's and resume it.
_running = set()
_in_this_process = threading.Lock()


def run_recommendation(db, cloud, recommendation_id, *, clock, settings, notifier=None,
                       tiers=None, in_flight=None) -> str:
    """Run (or resume) one recommendation; returns its status afterwards.

    A final recommendation returns its status untouched; a ``manual_action`` one waits
    for an operator's run and is not touched either. When another run of the same
    recommendation holds the VM, or runs in this process, this call returns the current
    status without acting.
    ``tiers`` (an ``order.TierGate``) makes runs started together ask Nova tier by tier
    (``evacuate_order``). ``in_flight`` (an ``inflight.InFlight``, the engine's) bounds the
    migrations in flight per target host and in all (``settings.max_concurrent_per_*``);
    without it only this run is counted.
    """
    with _in_this_process:
        running_here = recommendation_id in _running
        _running.add(recommendation_id)
    try:
        rec = db_api.get_recommendation(db, recommendation_id)
        if running_here or rec["status"] in model_states.RECOMMENDATION_FINAL \
                or rec["status"] == model_states.RecommendationStatus.MANUAL_ACTION:
            return rec["status"]
        run = _Run(db, cloud, rec, clock, settings, notifier, tiers or order.TierGate((), clock),
                   in_flight or inflight.InFlight())
        if rec["status"] == model_states.RecommendationStatus.CREATED:
            return run.start()
        return run.resume()
    finally:
        if not running_here:
            with _in_this_process:
                _running.discard(recommendation_id)
        if tiers is not None:
            tiers.ended(recommendation_id)  # one that never asked Nova must not hold the next tier


class _Run:
    """One call of ``run_recommendation``: its lock token, transition and error history."""

    def __init__(self, db, cloud, rec, clock, settings, notifier, tiers, in_flight):
        self.db, self.cloud, self.rec = db, cloud, rec
        self.clock, self.settings, self.notifier = clock, settings, notifier
        self.tiers, self.in_flight = tiers, in_flight
        self.place = None  # the target host of the place in flight this run holds, if any
        self.journal = journal.Journal(db, rec["id"], clock)
        self.owner = owner_prefix(rec["id"]) + uuid.uuid4().hex[:8]
        self.transition = None
        self.was_active = False
        self.error_keys = []
        self.carriers = ()  # the VM's older accepted evacuations Nova may carry this attempt's on
        self.ends = progress.EndWatch(cloud, db, clock)  # whether the migration followed can still end

    # --- helpers ---------------------------------------------------------------------
    def _now(self):
        return as_datetime(self.clock.time())

    def _status(self):
        return db_api.get_recommendation(self.db, self.rec["id"])["status"]

    def _set_status(self, status, reason=None):
        """Move the recommendation; if another run already ended it, its status wins."""
        try:
            db_api.set_recommendation_status(self.db, self.rec["id"], status, reason=reason)
            return status
        except exception.Conflict:
            return self._status()

    def _begin(self, action, timeouts_s, desired_status=None, starts_recommendation=False):
        self.transition = tracker.begin(
            self.db, self.rec["vm_id"], action, self.owner, self._now(), timeouts_s,
            desired_host=self.rec["target_host"], desired_status=desired_status,
            recommendation_id=self.rec["id"], starts_recommendation=starts_recommendation)

    def _deadline_s(self):
        return as_posix(self.transition.deadline_at)

    def _holds_lock(self):
        state = db_api.get_vm_state(self.db, self.rec["vm_id"])
        return state["locked"] and state["lock_owner"] == self.owner

    def _unfenced_source(self):
        """SPEC 5: an evacuation whose source KeyVRM has not recorded as fenced is refused (a backstop)."""
        if self.rec["action"] != "evacuate":
            return None
        state = db_api.get_hypervisor_state(self.db, self.rec["source_host"])["state"]
        if state in prepare.FENCED_STATES:
            return None
        return "source %s is not fenced (KeyVRM state %s): it is not evacuated" % (self.rec["source_host"], state)

    def _storage_mode(self):
        """The declared storage mode of the aggregate of the recommendation's event (None: undeclared)."""
        if self.rec["action"] != "evacuate":
            return None
        aggregate = db_api.get_event_summary(self.db, self.rec["event_id"])["aggregate_name"]
        try:
            return db_api.get_aggregate_config(self.db, aggregate).storage_mode
        except exception.NotFound:
            return None

    def _task_left_by_dead_hosts(self, vm):
        """For an evacuation of a VM with a task: the ids of its ``accepted`` evacuations if only dead hosts hold it.

        A task on a fenced host's VM is left by work that cannot progress when none of the
        VM's unfinished migrations can still end (``progress``): an evacuation whose rebuild
        cast went to a target that died keeps it ``rebuilding``, a start sent to a host that
        died keeps it ``powering-on``. Nova's evacuate checks the vm_state only, so the VM
        can be evacuated again; Nova then carries the new evacuation on the oldest
        ``accepted`` record (returned, to be followed). None when the VM has no task, the
        action is not an evacuation, or some of its work may still end.
        """
        if vm is None or vm.task_state is None or self.rec["action"] != "evacuate":
            return None
        unfinished = [mig for mig in self.cloud.list_server_migrations(vm.id) if mig.status not in watch.FINAL]
        if progress.live_work(self.cloud, self.db, self.clock, unfinished):
            return None
        return tuple(sorted(mig.id for mig in unfinished if mig.migration_type == "evacuation"
                            and mig.status == "accepted"))

    def _observed(self):
        try:
            return prepare.server(self.cloud, self.rec["vm_id"])
        except errors.DriverError:
            return None

    # --- first run -------------------------------------------------------------------
    def start(self):
        """Lock the VM, mark the recommendation running and run its attempts."""
        started = self.clock.time()
        try:
            # The VM's lock and the recommendation's ``running`` in one transaction: a run
            # killed right after leaves a running recommendation whose lock resume() adopts.
            self._begin(self.rec["action"], self.settings.lifecycle_timeouts_s, starts_recommendation=True)
        except exception.VMLocked as locked:
            if (locked.owner or "").startswith(owner_prefix(self.rec["id"])):
                LOG.info("recommendation %s: another run holds VM %s", self.rec["id"],
                         self.rec["vm_id"])
                return self._status()
            reason = str(locked)
            self.journal.write(model_states.OperationKind.CANCEL, 0, reason, started_s=started)
            return self._set_status(model_states.RecommendationStatus.CANCELLED, reason)
        except exception.Conflict:
            # It ended (or was cancelled) between our read and our lock: leave it be (VM not locked).
            return self._status()
        self.journal.write("start", 0, "%s of VM %s from %s to %s; VM locked by %s" % (
            self.rec["action"], self.rec["vm_id"], self.rec["source_host"],
            self.rec["target_host"], self.owner), started_s=started)
        return self._attempts(1)

    # --- resume after a crash -------------------------------------------------------------
    def resume(self):
        """Carry on a ``running`` recommendation from its journal and the VM's lifecycle row."""
        started = self.clock.time()
        ops = db_api.list_operations(self.db, self.rec["id"])
        done = journal.progress(ops)
        self.was_active = done.first_status == ACTIVE
        self.error_keys = [classify.error_key(rule, text) for rule, text in done.error_keys]
        try:
            state = db_api.get_vm_state(self.db, self.rec["vm_id"])
        except exception.NotFound:
            state = None
        holder = (state or {}).get("lock_owner") or ""
        if not (state and state["locked"] and holder.startswith(owner_prefix(self.rec["id"]))):
            return self._resume_without_lock(done)
        if not db_api.end_vm_transition(self.db, self.rec["vm_id"], owner=holder):
            return self._status()  # another resumer took it over first
        phase = state["transitional_state"] or states.transitional_state(self.rec["action"])
        remaining_s = max(0.0, as_posix(state["deadline_at"]) - self.clock.time()) \
            if state["deadline_at"] else self.settings.lifecycle_timeouts_s[phase]
        action = "start" if phase == "starting" else self.rec["action"]
        try:
            self._begin(action, {phase: remaining_s}, desired_status=state["desired_status"])
        except exception.VMLocked as locked:
            return self._fail(done.attempt, None, None, "lost the VM on resume: %s" % locked)
        self.journal.write("start", done.attempt, "resumed after a restart; lock taken over from "
                           "%s by %s" % (holder, self.owner), started_s=started)
        if phase == "starting":
            return self._follow_start(done.attempt, started)
        if done.migration_id is not None and not done.attempt_closed:
            return self._attempts(done.attempt, migration_id=done.migration_id)
        adopted = None if done.attempt_closed else watch.migration_to_adopt(
            self.cloud, self.rec["vm_id"], self.rec["source_host"], self.rec["target_host"])
        if adopted is not None:
            self.journal.write("execute", max(done.attempt, 1), journal.accepted_message(
                self.rec["action"], adopted.dest_host, adopted.id) + " (found after a restart)")
            return self._attempts(max(done.attempt, 1), migration_id=adopted.id)
        return self._attempts(done.attempt + 1 if done.attempt_closed else max(done.attempt, 1))

    def _resume_without_lock(self, done):
        """The lock went while the run was down (lifecycle timeout, admin unlock): judge by Nova."""
        vm = self._observed()
        # a cold migration Nova finished but nobody confirmed is not done (VERIFY_RESIZE: the operator's now)
        at_target = vm is not None and vm.host == self.rec["target_host"] and vm.status != confirm.VERIFY_RESIZE
        running_again = not (self.rec["action"] == "evacuate" and self.was_active) or \
            (vm is not None and vm.status == ACTIVE)
        if at_target and running_again:
            self.journal.write(model_states.OperationKind.SUCCESS, done.attempt, "after a restart: VM found %s on the "
                               "target %s" % (vm.status, vm.host))
            return self._set_status(model_states.RecommendationStatus.SUCCEEDED)
        where = vm.host if vm is not None else "nowhere"
        return self._fail(done.attempt, None, None, "the VM's lock was released while the run was "
                          "down (lifecycle timeout or manual unlock); VM is on %s" % where,
                          finish_transition=False)

    # --- attempts -----------------------------------------------------------------------
    def _attempts(self, attempt, migration_id=None):
        """Run attempts from ``attempt`` until one succeeds, the run is cancelled or gives up."""
        while True:
            if migration_id is None:
                outcome = self._try(attempt)
            else:
                self.in_flight.adopt(self.rec["target_host"])
                self.place = self.rec["target_host"]
                try:
                    outcome = self._follow(attempt, migration_id)
                finally:
                    self._give_place_back()
                migration_id = None
            if isinstance(outcome, str):
                return outcome
            verdict = classify.classify(outcome)
            self.error_keys.append(classify.error_key(verdict.rule, outcome.message))
            stop = self._stop_reason(verdict, attempt)
            if stop:
                return self._fail(attempt, outcome, verdict, stop)
            self.journal.write("retry", attempt, journal.retry_message(verdict, attempt),
                               error=outcome.message)
            for action in verdict.cleanup:
                self._clean(action, attempt)
            self.clock.sleep(self.settings.retry_delay_s)
            attempt += 1

    def _stop_reason(self, verdict, attempt):
        """Why no further attempt is made, or None."""
        limit = self.settings.max_repeated_errors
        if verdict.rule == classify.NO_VALID_HOST:
            return "Nova's scheduler refused the target %s for this VM (no valid host): it is not " \
                "asked again" % self.rec["target_host"]
        if verdict.verdict == classify.FATAL:
            return "%s is not worth retrying" % verdict.rule
        if len(self.error_keys) >= limit and len(set(self.error_keys[-limit:])) == 1:
            return "the same error %d times in a row (executor_max_repeated_errors)" % limit
        if attempt >= self.settings.max_attempts:
            return "%d attempts made (executor_max_attempts)" % attempt
        if self.clock.time() >= self._deadline_s():
            return "the %s timeout has passed" % states.transitional_state(self.rec["action"])
        return None

    def _clean(self, action, attempt):
        started = self.clock.time()
        try:
            removed = cleanup.CLEANUPS[action](self.cloud, self.rec["vm_id"], self.rec["target_host"])
            self.journal.write("cleanup", attempt, "%s: %s" % (action, ", ".join(removed) or "nothing left"),
                               started_s=started)
        except errors.DriverError as error:
            self.journal.write("cleanup", attempt, "%s failed" % action, error=error, started_s=started)

    def _try(self, attempt):
        """One attempt: wait for the VM's tier and for room on the target, then ``_attempt``."""
        tier = self.tiers.wait_turn(self.rec["id"], self.clock)
        if tier is not None:
            self.journal.write("prepare", attempt, tier.message(self.tiers.tier_wait_s),
                               started_s=self.clock.time() - tier.waited_s)
        target = self.rec["target_host"]
        room = self.in_flight.take(target, self.clock, per_host=self.settings.max_concurrent_per_host,
                                   per_region=self.settings.max_concurrent_per_region,
                                   deadline_s=self._deadline_s())
        if room is None:
            return classify.Failure(classify.TIMEOUT, "no room for a migration to %s before the %s "
                                    "timeout ([executor] max_concurrent_per_host/_per_region)" % (
                                        target, states.transitional_state(self.rec["action"])))
        self.place = target
        try:
            if room.bound is not None:
                limit = self.settings.max_concurrent_per_host if room.bound == inflight.PER_HOST \
                    else self.settings.max_concurrent_per_region
                self.journal.write("prepare", attempt, room.message(target, limit),
                                   started_s=self.clock.time() - room.waited_s)
            return self._attempt(attempt)
        finally:
            self._give_place_back()

    def _give_place_back(self):
        """The migration ended (or was never asked for): free this run's place in flight (idempotent)."""
        if self.place is not None:
            self.in_flight.give_back(self.place)
            self.place = None

    def _attempt(self, attempt):
        """Honour a cancel request, prepare, ask Nova, follow the migration (a place in flight held)."""
        request = journal.cancel_request(db_api.list_operations(self.db, self.rec["id"]))
        if request:
            return self._cancel(attempt, request)
        if not self._holds_lock():
            LOG.warning("recommendation %s: lock of VM %s taken over; this run stops",
                        self.rec["id"], self.rec["vm_id"])
            return self._status()
        started = self.clock.time()
        try:
            vm = prepare.server(self.cloud, self.rec["vm_id"])
            left = self._task_left_by_dead_hosts(vm)
            reason = (self._unfenced_source()
                      or prepare.rejection(self.cloud, self.rec, vm, self._storage_mode(),
                                           self.settings.allow_rebuild_local_disk, task_left=left is not None))
        except errors.DriverError as error:
            self.journal.write("prepare", attempt, "could not read the cloud", error=error,
                               started_s=started)
            return classify.call_failure(error)
        if reason:
            return self._cancel(attempt, reason, started)
        self.carriers = left or ()
        status = vm.status if left is None else prepare.status_beneath(vm)  # a left task hides it
        self.journal.write("prepare", attempt, journal.prepared_message(vm, status, self.rec["target_host"], left),
                           started_s=started)
        if attempt == 1:
            self.was_active = status == ACTIVE
        started = self.clock.time()
        try:
            migration = self._ask_nova()
        except errors.DriverError as error:
            self.journal.write("execute", attempt, "%s to %s refused" % (
                self.rec["action"], self.rec["target_host"]), error=error, started_s=started)
            return classify.call_failure(error)
        self.journal.write("execute", attempt, journal.accepted_message(
            self.rec["action"], self.rec["target_host"], migration.id), started_s=started)
        return self._follow(attempt, migration.id)

    def _ask_nova(self):
        if self.rec["action"] == "evacuate":
            return self.cloud.evacuate(self.rec["vm_id"], self.rec["target_host"])
        if self.rec["action"] == model_states.RecommendationAction.COLD_MIGRATE:
            return self.cloud.cold_migrate(self.rec["vm_id"], self.rec["target_host"])
        return self.cloud.live_migrate(self.rec["vm_id"], self.rec["target_host"],
                                       block_migration=cloud_base.BLOCK_MIGRATION_AUTO)

    def _follow(self, attempt, migration_id):
        """Poll the migration to its end; success, or the ``Failure`` of this attempt."""
        self.tiers.accepted(self.rec["id"])  # Nova made the migration: the next tier need not wait for it
        started = self.clock.time()
        target = self.rec["target_host"]
        try:
            migration = watch.poll_migration(self.cloud, migration_id, self.clock,
                                             self.settings.poll_interval_s, self._deadline_s(),
                                             server_id=self.rec["vm_id"], abandon=self._abandon,
                                             carriers=self.carriers, on_carried=self._carried(attempt))
            if migration is not None and migration.status in watch.AWAITING_CONFIRM:
                migration = confirm.confirm(self.cloud, self.journal, attempt, migration, self.clock,
                                            self.settings.poll_interval_s, self._deadline_s(), abandon=self._abandon)
        except watch.Abandoned as given_up:
            self._give_place_back()
            return self._abandoned(attempt, migration_id, given_up, started)
        except errors.DriverError as error:
            self._give_place_back()
            return classify.Failure(classify.MIGRATION, "migration %s: %s" % (migration_id, error),
                                    migration_status="unknown")
        self._give_place_back()  # ended, or past the deadline: the start after an evacuation holds no place
        if isinstance(migration, classify.Failure):
            return migration
        if migration is None:
            timeout = self.settings.lifecycle_timeouts_s[states.transitional_state(self.rec["action"])]
            return classify.Failure(classify.TIMEOUT, "migration %s did not end within the %s "
                                    "timeout (%d s)" % (migration_id, "migrating", timeout))
        if migration.status in watch.SUCCEEDED:
            vm = self._settled_after_confirm() if migration.status == "confirmed" else self._observed()
            if vm is not None and vm.host == target:
                return self._succeeded(attempt, vm, started)
            return classify.Failure(classify.OUTCOME, "migration %s ended %s but the VM is on %s" % (
                migration_id, migration.status, vm.host if vm else "no host"))
        try:
            found = cleanup.leftovers(self.cloud, self.rec["vm_id"], target)
        except errors.DriverError:
            found = frozenset()
        return classify.Failure(classify.MIGRATION, journal.ended_message(migration, target, self._fault_of(migration)),
                                migration_status=migration.status, leftovers=found)

    def _fault_of(self, migration) -> Optional[str]:
        """Nova's message for why ``migration`` failed; None if it recorded none or did not answer."""
        try:
            return self.cloud.get_migration_fault(migration)
        except errors.DriverError as error:
            LOG.warning("recommendation %s: the fault of migration %s is unread: %s",
                        self.rec["id"], migration.id, error)
            return None

    def _carried(self, attempt):
        """What to do once Nova shows which record carries this attempt's evacuation (journal it, follow it)."""
        def note(carrier_id):
            self.carriers = ()
            self.journal.write("execute", attempt, journal.carried_message(
                self.rec["action"], self.rec["target_host"], carrier_id))
        return note

    def _settled_after_confirm(self):
        """The cold-migrated VM once Nova has set its state back (ACTIVE, or SHUTOFF if it was stopped).

        Nova marks the record ``confirmed`` a moment before it leaves VERIFY_RESIZE.
        """
        wanted = ACTIVE if self.was_active else SHUTOFF
        try:
            return watch.poll_server_status(self.cloud, self.rec["vm_id"], wanted, self.clock,
                                            self.settings.poll_interval_s, self._deadline_s())
        except errors.DriverError:
            return None

    def _abandon(self) -> Optional[watch.Abandoned]:
        """Why to stop following the migration now, between two polls, or None.

        An operator's cancel request or unlock of the VM takes effect at once; a migration
        whose target (or, live, either end) is down or fenced will not finish
        (``progress.EndWatch``: fenced read every poll, Nova's services every 10 s).
        """
        request = journal.cancel_request(db_api.list_operations(self.db, self.rec["id"]))
        if request:
            return watch.Abandoned(watch.CANCEL, request)
        if not self._holds_lock():
            return watch.Abandoned(watch.UNLOCKED, "the VM was unlocked (openstack keyvrm vm unlock)")
        dead = self.ends.dead_end(self.rec["action"], self.rec["source_host"], self.rec["target_host"])
        return watch.Abandoned(watch.TARGET_DOWN, dead) if dead else None

    def _target_gone(self) -> Optional[watch.Abandoned]:
        """Why to stop waiting for an evacuated VM to start: the target it is on went down (or None)."""
        dead = self.ends.host_down(self.rec["target_host"])
        return watch.Abandoned(watch.TARGET_DOWN, "the target %s is down: %s" % (self.rec["target_host"], dead)) \
            if dead else None

    def _abandoned(self, attempt, migration_id, given_up, started):
        """End a run whose migration is no longer followed (see ``_abandon``)."""
        last = given_up.last
        seen = "migration %s left %s" % (migration_id, last.status if last is not None else "unread")
        if given_up.kind == watch.TARGET_DOWN:
            return classify.Failure(classify.TARGET_DOWN, "%s: %s" % (given_up.reason, seen),
                                    migration_status=last.status if last is not None else None)
        if given_up.kind == watch.UNLOCKED:
            self.journal.write(model_states.OperationKind.CANCEL, attempt, "%s; %s" % (given_up.reason, seen),
                               started_s=started)
            return self._set_status(model_states.RecommendationStatus.CANCELLED, given_up.reason)
        return self._cancel(attempt, "%s; %s (Nova may still finish it)" % (given_up.reason, seen), started)

    # --- endings ----------------------------------------------------------------------------
    def _succeeded(self, attempt, vm, started):
        message = "VM %s on the target %s" % (vm.status, vm.host)
        tracker.finish(self.db, self.transition, self._now(), True, vm.host, vm.status,
                       message=message)
        if self.rec["action"] == "evacuate" and self.was_active and vm.status != ACTIVE:
            return self._start_after_evacuation(attempt)
        self.journal.write(model_states.OperationKind.SUCCESS, attempt, message, started_s=started)
        return self._set_status(model_states.RecommendationStatus.SUCCEEDED)

    def _start_after_evacuation(self, attempt):
        """Start the evacuated VM that was running before, as its own lifecycle action."""
        started = self.clock.time()
        try:
            self._begin("start", self.settings.lifecycle_timeouts_s, desired_status=ACTIVE)
        except exception.VMLocked as locked:
            return self._fail(attempt, None, None, "evacuated, but not started: %s" % locked,
                              finish_transition=False)
        try:
            self.cloud.start_server(self.rec["vm_id"])
        except errors.DriverError as error:
            tracker.not_delivered(self.db, self.transition, self._now(), error)
            self.journal.write("execute", attempt, "start after the evacuation refused", error=error,
                               started_s=started)
            return self._fail(attempt, classify.call_failure(error), None,
                              "evacuated to %s, but the start was refused" % self.rec["target_host"],
                              finish_transition=False)
        self.journal.write("execute", attempt, "start after the evacuation accepted (Nova >= 2.95 "
                           "leaves an evacuated VM SHUTOFF)", started_s=started)
        return self._follow_start(attempt, started)

    def _follow_start(self, attempt, started):
        try:
            vm = watch.poll_server_status(self.cloud, self.rec["vm_id"], ACTIVE, self.clock,
                                          self.settings.poll_interval_s, self._deadline_s(),
                                          abandon=self._target_gone)
        except watch.Abandoned as given_up:
            return self._fail(attempt, classify.Failure(classify.TARGET_DOWN, given_up.reason), None,
                              "evacuated to %s, but not started: %s" % (self.rec["target_host"], given_up.reason))
        except errors.DriverError as error:
            vm, failure = None, classify.call_failure(error)
        else:
            failure = None
        if vm is not None and vm.status == ACTIVE and vm.task_state is None:
            message = "VM ACTIVE on the target %s" % vm.host
            tracker.finish(self.db, self.transition, self._now(), True, vm.host, vm.status,
                           message=message)
            self.journal.write(model_states.OperationKind.SUCCESS, attempt, message, started_s=started)
            return self._set_status(model_states.RecommendationStatus.SUCCEEDED)
        status = "%s/%s" % (vm.status, vm.task_state) if vm is not None else "unknown"
        return self._fail(attempt, failure, None, "evacuated to %s, but not ACTIVE by the "
                          "starting timeout (status %s)" % (self.rec["target_host"], status))

    def _cancel(self, attempt, reason, started=None):
        self.journal.write(model_states.OperationKind.CANCEL, attempt, reason, started_s=started)
        tracker.not_delivered(self.db, self.transition, self._now(), "cancelled: %s" % reason)
        return self._set_status(model_states.RecommendationStatus.CANCELLED, reason)

    def _fail(self, attempt, failure, verdict, reason, finish_transition=True):
        """Give up: journal the error, end the transition as failed, alert."""
        error = failure.message if failure is not None else None
        self.journal.write(model_states.OperationKind.ERROR, attempt, "giving up: %s" % reason, error=error)
        if finish_transition and self.transition is not None:
            vm = self._observed()
            tracker.finish(self.db, self.transition, self._now(), False,
                           vm.host if vm else None, vm.status if vm else None,
                           message="%s%s" % (reason, ": %s" % error if error else ""))
        status = self._set_status(model_states.RecommendationStatus.FAILED, reason)
        if status == model_states.RecommendationStatus.FAILED:
            self._alert(attempt, error, verdict, reason)
        return status

    def _alert(self, attempt, error, verdict, reason):
        if self.notifier is None:
            return
        try:
            aggregate = db_api.get_event_summary(self.db, self.rec["event_id"])["aggregate_name"]
        except exception.NotFound:
            aggregate = None
        self.notifier.recommendation_error({
            "recommendation_id": self.rec["id"], "event_id": self.rec["event_id"],
            "aggregate": aggregate, "action": self.rec["action"], "vm_id": self.rec["vm_id"],
            "source_host": self.rec["source_host"], "target_host": self.rec["target_host"],
            "attempts": attempt, "error": error,
            "error_rule": verdict.rule if verdict else None,
            "error_class": verdict.verdict if verdict else classify.FATAL,
            "reason": reason, "failed_at": self.clock.time()})
