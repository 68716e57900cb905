"""The executor against the sim cloud on a small generated region, with simulated time."""

import pytest

from keyvrm.db import api as db_api
from keyvrm.drivers.errors import CloudError
from keyvrm.executor import runner
from keyvrm.lifecycle import tracker
from keyvrm.simulator import compute
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import faults
from tests.unit.executor import helpers as h


def _run(db, cloud, rec_id, region, settings=h.SETTINGS, notifier=None):
    return runner.run_recommendation(db, cloud, rec_id, clock=h.RegionClock(region),
                                     settings=settings, notifier=notifier)


def test_live_migration_ends_with_the_vm_on_the_target_and_a_full_journal(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert vm.host == h.TARGET
    assert region.migrations[1].block == "auto"
    assert h.kinds(sqlite_db, rec_id) == ["start", "prepare", "execute", "success"]
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert ops[2]["message"] == "live_migrate to %s accepted as migration 1" % h.TARGET
    assert ops[3]["duration_s"] > 0
    state = db_api.get_vm_state(sqlite_db, vm.id)
    assert not state["locked"] and state["observed_host"] == h.TARGET
    assert state["failure_state"] is None
    history = db_api.list_vm_history(sqlite_db, vm.id)
    assert [(e["action"], e["status"]) for e in history] == [("live_migrate", "succeeded")]


def test_evacuation_starts_the_vm_that_was_active_because_nova_leaves_it_shutoff(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert vm.host == h.TARGET and vm.status == "ACTIVE" and vm.running
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [op["kind"] for op in ops] == ["start", "prepare", "execute", "execute", "success"]
    assert ops[3]["message"].startswith("start after the evacuation accepted")
    history = db_api.list_vm_history(sqlite_db, vm.id)
    assert [(e["action"], e["status"]) for e in history] == [("evacuate", "succeeded"),
                                                             ("start", "succeeded")]
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_evacuated_vm_that_was_shutoff_stays_shutoff(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    vm.status, vm.running = "SHUTOFF", False
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert vm.host == h.TARGET and vm.status == "SHUTOFF"
    assert h.kinds(sqlite_db, rec_id) == ["start", "prepare", "execute", "success"]
    assert db_api.get_recommendation(sqlite_db, rec_id)["attempts"] == 1


def test_stuck_migration_times_out_to_migration_failed_and_unlocks_the_vm(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    notifier = h.RecordingNotifier()
    clock = h.RegionClock(region)
    status = runner.run_recommendation(sqlite_db, SimCloudDriver(region), rec_id, clock=clock,
                                       settings=h.SETTINGS, notifier=notifier)
    assert status == "failed"
    assert clock.slept_s == pytest.approx(h.TIMEOUTS_S["migrating"])
    assert vm.host == h.SOURCE
    state = db_api.get_vm_state(sqlite_db, vm.id)
    assert not state["locked"] and state["failure_state"] == "migration_failed"
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert ops[-1]["kind"] == "error"
    assert "did not end within the migrating timeout" in ops[-1]["error"]
    assert len(region.migrations) == 1
    [alert] = notifier.errors
    assert alert["error_rule"] == "migration_timeout" and alert["error_class"] == "fatal"
    assert alert["vm_id"] == vm.id and alert["aggregate"] == "agg-001"


def test_an_error_that_repeats_stops_at_max_repeated_errors(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.nova_api_503(region, {"duration_s": 3600})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    settings = h.with_settings(max_attempts=5, max_repeated_errors=2)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region, settings) == "failed"
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [(op["kind"], op["attempt"]) for op in ops] == [
        ("start", 0), ("prepare", 1), ("retry", 1), ("prepare", 2), ("error", 2)]
    assert ops[2]["message"] == "attempt 1 failed: api_unavailable (retry); next attempt 2"
    assert ops[-1]["message"] == ("giving up: the same error 2 times in a row "
                                  "(executor_max_repeated_errors)")
    assert ops[-1]["error"].startswith("Service Unavailable")


def test_alternating_errors_stop_at_max_attempts(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    busy = CloudError(409, "Cannot 'os-migrateLive' instance while it is in task_state "
                           "powering-on", "task_state")
    down = CloudError(503, "Service Unavailable", "service_unavailable")
    cloud = h.ScriptedCloud(region, live_migrate_errors=[busy, down, busy, down])
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    settings = h.with_settings(max_attempts=3, max_repeated_errors=2)
    assert _run(sqlite_db, cloud, rec_id, region, settings) == "failed"
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [op["attempt"] for op in ops if op["kind"] == "execute"] == [1, 2, 3]
    assert [op["kind"] for op in ops].count("retry") == 2
    assert ops[-1]["message"] == "giving up: 3 attempts made (executor_max_attempts)"
    assert vm.host == h.SOURCE and not region.migrations
    assert db_api.get_recommendation(sqlite_db, rec_id)["attempts"] == 3


def test_inactive_port_binding_on_the_target_is_deleted_before_the_retry(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    region.inactive_bindings.add((compute.port_id(vm), h.TARGET))  # left by an earlier failure
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert not region.inactive_bindings
    assert vm.host == h.TARGET and len(region.migrations) == 2
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [op["kind"] for op in ops] == ["start", "prepare", "execute", "retry", "cleanup",
                                          "prepare", "execute", "success"]
    assert ops[3]["message"].startswith("attempt 1 failed: inactive_port_binding "
                                        "(retry_after_cleanup)")
    assert ops[4]["message"] == "delete_inactive_port_bindings: %s@%s" % (
        compute.port_id(vm), h.TARGET)


def test_stale_volume_attachment_is_deleted_before_the_evacuation_is_retried(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    region.stale_attachments["att-stale"] = (vm.id, compute.volume_id(vm), h.TARGET)
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert "att-stale" not in region.stale_attachments
    assert vm.host == h.TARGET and vm.status == "ACTIVE"
    cleanups = [op for op in db_api.list_operations(sqlite_db, rec_id) if op["kind"] == "cleanup"]
    assert [op["message"] for op in cleanups] == ["delete_stale_volume_attachments: att-stale"]


def test_a_target_nova_s_scheduler_refuses_ends_the_run_at_once_with_nova_s_fault_in_the_journal(sqlite_db):
    """NoValidHost for the named target: no retry delay, no second ask of that host (HA's round 2 re-plans)."""
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    faults.scheduler_refuses(region, {"hosts": [h.TARGET], "count": 5})
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    clock = h.RegionClock(region)
    status = runner.run_recommendation(sqlite_db, SimCloudDriver(region), rec_id, clock=clock,
                                       settings=h.SETTINGS)
    assert status == "failed"
    assert clock.slept_s < h.SETTINGS.retry_delay_s  # polls only, never the retry delay
    assert [m.dest_host for m in region.migrations.values()] == [h.TARGET]  # asked once
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [op["kind"] for op in ops] == ["start", "prepare", "execute", "error"]
    assert ops[-1]["error"] == "evacuation to %s ended error; Nova's fault: No valid host was found." % h.TARGET
    rec = db_api.get_recommendation(sqlite_db, rec_id)
    assert rec["attempts"] == 1
    assert rec["reason"].startswith("Nova's scheduler refused the target %s for this VM" % h.TARGET)
    assert (vm.host, vm.status) == (h.SOURCE, "ERROR")  # as Nova's conductor leaves it
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_prepare_cancels_when_the_vm_is_no_longer_on_the_source(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.OTHER)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id, source=h.SOURCE)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "cancelled"
    rec = db_api.get_recommendation(sqlite_db, rec_id)
    assert rec["reason"] == "VM is on %s, not on the source %s any more" % (h.OTHER, h.SOURCE)
    assert h.kinds(sqlite_db, rec_id) == ["start", "cancel"]
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"] and not region.migrations


def test_prepare_cancels_when_the_target_is_full(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    target = region.hosts[h.TARGET]
    target.used_ram_mb = int(target.ram_capacity_mb) - 1024  # filled since the snapshot
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "cancelled"
    reason = db_api.get_recommendation(sqlite_db, rec_id)["reason"]
    assert reason.startswith("target %s is full: MEMORY_MB free 1024 <" % h.TARGET)
    assert not region.migrations


def test_evacuation_is_cancelled_while_the_source_compute_service_is_up(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "cancelled"
    assert "compute service is up" in db_api.get_recommendation(sqlite_db, rec_id)["reason"]


def test_a_vm_locked_by_another_action_is_cancelled_with_the_holder(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    tracker.begin(sqlite_db, vm.id, "stop", "operator-x", runner.as_datetime(region.now),
                  h.TIMEOUTS_S)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "cancelled"
    rec = db_api.get_recommendation(sqlite_db, rec_id)
    assert rec["reason"] == "VM is locked: %s (held by operator-x)" % vm.id
    assert db_api.get_vm_state(sqlite_db, vm.id)["lock_owner"] == "operator-x"


@pytest.mark.parametrize("crash_on", ["poll", "after_accept"])
def test_resume_after_a_crash_polls_the_running_migration_instead_of_starting_another(
        sqlite_db, crash_on):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    with pytest.raises(h.Crash):
        _run(sqlite_db, h.ScriptedCloud(region, crash_on=crash_on), rec_id, region)
    assert db_api.get_recommendation(sqlite_db, rec_id)["status"] == "running"
    assert db_api.get_vm_state(sqlite_db, vm.id)["locked"]
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert len(region.migrations) == 1 and vm.host == h.TARGET
    messages = [op["message"] for op in db_api.list_operations(sqlite_db, rec_id)]
    assert any(m.startswith("resumed after a restart; lock taken over from executor:%s:"
                            % rec_id) for m in messages)
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_a_run_killed_right_after_locking_the_vm_leaves_a_running_recommendation_the_next_run_resumes(
        sqlite_db, monkeypatch):
    """The lock and ``running`` are one transaction: no VM locked for a recommendation that never ran."""
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)

    begin = tracker.begin

    def killed(*args, **kwargs):
        begin(*args, **kwargs)
        raise h.Crash()  # the engine dies the moment the VM is locked

    with monkeypatch.context() as patched:
        patched.setattr(tracker, "begin", killed)
        with pytest.raises(h.Crash):
            _run(sqlite_db, SimCloudDriver(region), rec_id, region)
    assert db_api.get_recommendation(sqlite_db, rec_id)["status"] == "running"
    assert db_api.get_vm_state(sqlite_db, vm.id)["lock_owner"].startswith(runner.owner_prefix(rec_id))
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert len(region.migrations) == 1 and vm.host == h.TARGET
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_a_recommendation_cancelled_before_its_run_locks_nothing(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    run = runner._Run(sqlite_db, SimCloudDriver(region), db_api.get_recommendation(sqlite_db, rec_id),
                      h.RegionClock(region), h.SETTINGS, None, None, None)
    db_api.set_recommendation_status(sqlite_db, rec_id, "cancelled", reason="operator")
    assert run.start() == "cancelled"
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"] and not region.migrations


def test_resume_adopts_a_migration_that_ended_while_its_answer_was_not_recorded(sqlite_db):
    """Nova accepted the move, the run lost its database before the journal line, the move finished."""
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    with pytest.raises(h.Crash):
        _run(sqlite_db, h.ScriptedCloud(region, crash_on="after_accept"), rec_id, region)
    region.clock.advance(600)  # the live migration completes while nobody watches
    assert vm.host == h.TARGET
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert len(region.migrations) == 1
    messages = [op["message"] for op in db_api.list_operations(sqlite_db, rec_id)]
    assert any(m.endswith("(found after a restart)") for m in messages)


def test_resume_after_the_lock_expired_judges_by_what_nova_reports(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    with pytest.raises(h.Crash):
        _run(sqlite_db, h.ScriptedCloud(region, crash_on="poll"), rec_id, region)
    region.clock.advance(h.TIMEOUTS_S["migrating"] + 1)
    assert db_api.force_unlock_vm(sqlite_db, vm.id, "admin")  # the operator gives up on the lost run
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "failed"
    assert "lock was released while the run was down" in \
        db_api.get_recommendation(sqlite_db, rec_id)["reason"]


def test_a_final_or_manual_recommendation_is_not_touched(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, manual_id = h.recommendation(sqlite_db, "live_migrate", vm.id, auto_run=False)
    assert _run(sqlite_db, SimCloudDriver(region), manual_id, region) == "manual_action"
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    journal_before = h.kinds(sqlite_db, rec_id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert h.kinds(sqlite_db, rec_id) == journal_before and len(region.migrations) == 1
    assert h.kinds(sqlite_db, manual_id) == []


def test_a_cancel_request_is_honoured_before_the_next_attempt(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)

    class CancelOnFirstRefusal(h.ScriptedCloud):
        def live_migrate(self, server_id, target_host, block_migration="auto"):
            db_api.request_recommendation_cancel(sqlite_db, rec_id, "operator-y")
            return super().live_migrate(server_id, target_host, block_migration)

    cloud = CancelOnFirstRefusal(region, live_migrate_errors=[CloudError(503, "Unavailable")])
    assert _run(sqlite_db, cloud, rec_id, region) == "cancelled"
    assert db_api.get_recommendation(sqlite_db, rec_id)["reason"] == "cancel requested by operator-y"
    assert not region.migrations and not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_resume_during_the_start_after_an_evacuation_waits_for_the_start(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)

    class CrashAfterStart(SimCloudDriver):
        def start_server(self, server_id):
            super().start_server(server_id)
            raise h.Crash("engine died after asking for the start")

    with pytest.raises(h.Crash):
        _run(sqlite_db, CrashAfterStart(region), rec_id, region)
    assert db_api.get_vm_state(sqlite_db, vm.id)["transitional_state"] == "starting"
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert vm.host == h.TARGET and vm.status == "ACTIVE" and len(region.migrations) == 1
    assert h.kinds(sqlite_db, rec_id)[-2:] == ["start", "success"]


def test_evacuation_of_a_vm_on_local_disk_is_cancelled_unless_rebuild_is_allowed(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    vm.volume_backed = False
    h.source_down(region)
    _, refused = h.recommendation(sqlite_db, "evacuate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), refused, region) == "cancelled"
    assert "local disk" in db_api.get_recommendation(sqlite_db, refused)["reason"]
    _, allowed = h.recommendation(sqlite_db, "evacuate", vm.id)
    settings = h.with_settings(allow_rebuild_local_disk=True)
    assert _run(sqlite_db, SimCloudDriver(region), allowed, region, settings) == "succeeded"


def test_evacuation_of_a_source_keyvrm_did_not_fence_is_cancelled_and_nothing_moves(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id, fenced=False)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "cancelled"
    assert vm.host == h.SOURCE and not region.migrations
    reason = db_api.get_recommendation(sqlite_db, rec_id)["reason"]
    assert reason == "source %s is not fenced (KeyVRM state ok): it is not evacuated" % h.SOURCE
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


class _DuringFollow(SimCloudDriver):
    """The sim cloud that calls ``on_poll()`` at its ``at``-th read of the migration record."""

    def __init__(self, region, on_poll, at=2):
        super().__init__(region)
        self.on_poll, self.at, self.polls = on_poll, at, 0

    def get_migration(self, migration_id, server_id=None):
        self.polls += 1
        if self.polls == self.at:
            self.on_poll()
        return super().get_migration(migration_id, server_id)


def test_a_target_that_dies_mid_migration_ends_the_run_at_once_not_at_the_migrating_timeout(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})  # Nova's record stays accepted, as on a real dead target
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    cloud = _DuringFollow(region, lambda: h.source_down(region, h.TARGET))
    clock = h.RegionClock(region)
    status = runner.run_recommendation(sqlite_db, cloud, rec_id, clock=clock, settings=h.SETTINGS)
    assert status == "failed"
    assert clock.slept_s < h.TIMEOUTS_S["migrating"] / 10  # a few polls, not the 6 h of the migrating timeout
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert ops[-1]["kind"] == "error" and "target_down is not worth retrying" in ops[-1]["message"]
    assert "the target %s is down: its compute service is forced down" % h.TARGET in ops[-1]["error"]
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]  # the dead target is busy with nothing
    assert db_api.busy_set(sqlite_db).hosts == frozenset()


def test_a_cancel_or_an_unlock_during_a_stuck_migration_takes_effect_at_the_next_poll(sqlite_db):
    for act in ("cancel", "unlock"):
        region = h.small_region()
        vm = h.vm_on(region, h.SOURCE)
        faults.migration_stuck(region, {"count": 1})
        _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)

        def operator(rec_id=rec_id, vm_id=vm.id, act=act):
            if act == "cancel":
                db_api.request_recommendation_cancel(sqlite_db, rec_id, "bob")
            else:
                db_api.force_unlock_vm(sqlite_db, vm_id, "bob")

        clock = h.RegionClock(region)
        status = runner.run_recommendation(sqlite_db, _DuringFollow(region, operator), rec_id, clock=clock,
                                           settings=h.SETTINGS)
        assert status == "cancelled", act
        assert clock.slept_s < h.TIMEOUTS_S["migrating"] / 10, act
        last = db_api.list_operations(sqlite_db, rec_id)[-1]
        assert last["kind"] == "cancel" and "migration 1 left" in last["message"], act
        assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"], act
