"""The executor's cold migration on the sim cloud: migrate, follow, confirm, follow the confirmation."""

from keyvrm.db import api as db_api
from keyvrm.drivers.errors import CloudError
from keyvrm.executor import runner
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from tests.unit.executor import helpers as h


def _run(db, cloud, rec_id, region):
    return runner.run_recommendation(db, cloud, rec_id, clock=h.RegionClock(region), settings=h.SETTINGS)


def _stopped_vm(region):
    vm = h.vm_on(region, h.SOURCE)
    vm.status, vm.running = "SHUTOFF", False
    return vm


class _Confirms(SimCloudDriver):
    """The sim cloud whose ``confirm_resize`` first raises the scripted errors, then confirms."""

    def __init__(self, region, errors):
        super().__init__(region)
        self.errors, self.asked = list(errors), 0

    def confirm_resize(self, server_id):
        self.asked += 1
        if self.errors:
            raise self.errors.pop(0)
        super().confirm_resize(server_id)


def test_a_stopped_vm_is_cold_migrated_confirmed_and_shutoff_on_the_target_with_its_journal(sqlite_db):
    region = h.small_region()
    vm = _stopped_vm(region)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    migration = region.migrations[1]
    assert (migration.migration_type, migration.status) == ("migration", "confirmed")
    assert (vm.host, vm.status, vm.task_state) == (h.TARGET, "SHUTOFF", None)
    assert region.hosts[h.SOURCE].used_vcpus == sum(v.flavor.vcpus for v in region.hosts[h.SOURCE].vms)
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert [(op["kind"], op["message"]) for op in ops[2:]] == [
        ("execute", "cold_migrate to %s accepted as migration 1" % h.TARGET),
        ("execute", "migration 1 finished (VM VERIFY_RESIZE on %s): confirmResize accepted" % h.TARGET),
        ("success", "VM SHUTOFF on the target %s" % h.TARGET)]
    state = db_api.get_vm_state(sqlite_db, vm.id)
    assert not state["locked"] and (state["observed_host"], state["observed_status"]) == (h.TARGET, "SHUTOFF")
    assert [(e["action"], e["status"]) for e in db_api.list_vm_history(sqlite_db, vm.id)] == [
        ("cold_migrate", "succeeded")]


def test_a_running_vm_is_active_again_on_the_target_once_confirmed(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert (vm.host, vm.status, vm.running) == (h.TARGET, "ACTIVE", True)
    assert db_api.list_operations(sqlite_db, rec_id)[-1]["message"] == "VM ACTIVE on the target %s" % h.TARGET


def test_a_confirmation_nova_does_not_answer_is_asked_again_until_accepted(sqlite_db):
    region = h.small_region()
    vm = _stopped_vm(region)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)
    cloud = _Confirms(region, [CloudError(503, "Service Unavailable", "service_unavailable")] * 2)
    assert _run(sqlite_db, cloud, rec_id, region) == "succeeded"
    assert cloud.asked == 3 and region.migrations[1].status == "confirmed"
    assert db_api.get_recommendation(sqlite_db, rec_id)["attempts"] == 1


def test_a_refused_confirmation_fails_the_run_at_once_leaving_the_vm_verify_resize_for_the_operator(sqlite_db):
    region = h.small_region()
    vm = _stopped_vm(region)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)
    cloud = _Confirms(region, [CloudError(403, "Policy doesn't allow os_compute_api:servers:confirm_resize")])
    clock = h.RegionClock(region)
    assert runner.run_recommendation(sqlite_db, cloud, rec_id, clock=clock, settings=h.SETTINGS) == "failed"
    assert (vm.host, vm.status) == (h.TARGET, "VERIFY_RESIZE") and len(region.migrations) == 1
    assert cloud.asked == 1 and clock.slept_s < 60
    ops = db_api.list_operations(sqlite_db, rec_id)
    assert ops[-2]["kind"] == "execute" and "confirm or revert it" in ops[-2]["message"]
    assert ops[-1]["kind"] == "error" and ops[-1]["message"] == "giving up: confirm_refused is not worth retrying"
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]


def test_a_confirmation_someone_else_made_meanwhile_is_followed_to_its_end(sqlite_db):
    region = h.small_region()
    vm = _stopped_vm(region)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)

    class ConfirmedFirst(SimCloudDriver):  # Nova's resize_confirm_window got there first
        def confirm_resize(self, server_id):
            super().confirm_resize(server_id)
            raise CloudError(409, "Cannot 'confirmResize' instance %s while it is in vm_state resized" % server_id)

    assert _run(sqlite_db, ConfirmedFirst(region), rec_id, region) == "succeeded"
    messages = [op["message"] for op in db_api.list_operations(sqlite_db, rec_id)]
    assert "migration 1 is confirming: confirmed by someone else" in messages
    assert (vm.host, vm.status, region.migrations[1].status) == (h.TARGET, "SHUTOFF", "confirmed")


def test_a_run_killed_while_following_resumes_and_confirms_the_one_migration_nova_made(sqlite_db):
    region = h.small_region()
    vm = _stopped_vm(region)
    _, rec_id = h.recommendation(sqlite_db, "cold_migrate", vm.id)

    class Dies(SimCloudDriver):
        def get_migration(self, migration_id, server_id=None):
            raise h.Crash("engine died while polling")

    try:
        _run(sqlite_db, Dies(region), rec_id, region)
    except h.Crash:
        pass
    region.clock.advance(300)  # Nova finishes the copy meanwhile: VERIFY_RESIZE, unconfirmed
    assert vm.status == "VERIFY_RESIZE"
    assert _run(sqlite_db, SimCloudDriver(region), rec_id, region) == "succeeded"
    assert len(region.migrations) == 1 and region.migrations[1].status == "confirmed"
    assert (vm.host, vm.status) == (h.TARGET, "SHUTOFF")
