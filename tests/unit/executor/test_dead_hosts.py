"""The executor when a host a migration needs dies: it stops waiting, and evacuates again over what Nova left."""

from keyvrm.db import api as db_api
from keyvrm.executor import progress
from keyvrm.executor import runner
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import faults
from tests.unit.executor import helpers as h


def _run(db, cloud, rec_id, region):
    clock = h.RegionClock(region)
    return runner.run_recommendation(db, cloud, rec_id, clock=clock, settings=h.SETTINGS), clock


def _dies(region, host):
    """``host`` loses power and Nova is told (the fence of its own HA run)."""
    region.set_host_condition(region.hosts[host], powered=False)
    region.hosts[host].forced_down = True


def _left_rebuilding_by_a_dead_target(region, vm):
    """Nova accepted an evacuation of ``vm`` to TARGET, whose nova-compute died before the rebuild cast."""
    h.source_down(region)
    first = SimCloudDriver(region).evacuate(vm.id, h.TARGET)
    region.set_host_condition(region.hosts[h.TARGET], powered=False)
    region.clock.advance(5)
    assert (region.migrations[first.id].status, vm.task_state) == ("accepted", "rebuilding")
    region.hosts[h.TARGET].forced_down = True
    return first.id


def test_a_vm_an_evacuation_to_a_dead_target_left_rebuilding_is_evacuated_on_the_record_nova_carries(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    stuck = _left_rebuilding_by_a_dead_target(region, vm)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id, target=h.OTHER)
    status, _ = _run(sqlite_db, SimCloudDriver(region), rec_id, region)
    assert status == "succeeded" and vm.host == h.OTHER and vm.status == "ACTIVE"
    new = max(region.migrations)
    # Nova's conductor moved the old record to the new target; the new one stays accepted for ever
    assert (region.migrations[stuck].status, region.migrations[stuck].dest_host) == ("done", h.OTHER)
    assert region.migrations[new].status == "accepted" and region.migrations[new].superseded
    messages = [op["message"] for op in db_api.list_operations(sqlite_db, rec_id)]
    assert messages[1].startswith("VM ACTIVE on %s" % h.SOURCE)  # the vm_state beneath the task: started after
    assert ("task_state rebuilding (Nova shows REBUILD) left by work on dead hosts (migrations %d stay accepted)"
            % stuck) in messages[1]
    assert messages[3] == ("evacuate to %s carried by Nova on the VM's older evacuation record, accepted as "
                           "migration %d" % (h.OTHER, stuck))


def test_a_vm_whose_evacuation_to_a_live_target_may_still_end_is_left_busy(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    faults.migration_stuck(region, {"count": 1})
    SimCloudDriver(region).evacuate(vm.id, h.TARGET)
    region.clock.advance(5)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id, target=h.OTHER)
    status, _ = _run(sqlite_db, SimCloudDriver(region), rec_id, region)
    assert status == "cancelled" and vm.host == h.SOURCE and len(region.migrations) == 1
    assert db_api.get_recommendation(sqlite_db, rec_id)["reason"] == "VM is busy (task_state rebuilding)"


class _StartKills(SimCloudDriver):
    """The sim cloud whose target dies as the evacuated VM's start is asked for (Nova still accepts it)."""

    killed_at = None

    def start_server(self, server_id):
        super().start_server(server_id)
        _dies(self.region, h.TARGET)
        self.killed_at = self.region.clock.now


def test_a_target_that_dies_before_the_evacuated_vm_started_fails_the_run_at_once(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    h.source_down(region)
    _, rec_id = h.recommendation(sqlite_db, "evacuate", vm.id)
    cloud = _StartKills(region)
    status, _ = _run(sqlite_db, cloud, rec_id, region)
    assert status == "failed" and vm.host == h.TARGET and vm.task_state == "powering-on"
    # Nova's services are asked at most every 10 s: two polls, not the starting timeout (120 s)
    assert region.clock.now - cloud.killed_at <= progress.NOVA_CHECK_INTERVAL_S + h.SETTINGS.poll_interval_s
    reason = db_api.get_recommendation(sqlite_db, rec_id)["reason"]
    assert reason == ("evacuated to %s, but not started: the target %s is down: its compute service is forced "
                      "down" % (h.TARGET, h.TARGET))
    assert not db_api.get_vm_state(sqlite_db, vm.id)["locked"]  # its own host's HA run may evacuate it


class _AtPoll(SimCloudDriver):
    """The sim cloud that calls ``on_poll()`` at the second read of the migration record."""

    def __init__(self, region, on_poll):
        super().__init__(region)
        self.on_poll, self.polls = on_poll, 0

    def get_migration(self, migration_id, server_id=None):
        self.polls += 1
        if self.polls == 2:
            self.on_poll()
        return super().get_migration(migration_id, server_id)


def test_a_live_migration_whose_source_dies_ends_at_the_next_poll(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    status, clock = _run(sqlite_db, _AtPoll(region, lambda: _dies(region, h.SOURCE)), rec_id, region)
    assert status == "failed" and clock.slept_s < h.TIMEOUTS_S["migrating"] / 10
    error = db_api.list_operations(sqlite_db, rec_id)[-1]["error"]
    assert error.startswith("the source %s is down: its compute service is forced down" % h.SOURCE)


def test_a_target_keyvrm_condemned_ends_the_migration_before_nova_notices(sqlite_db):
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    ha_event = db_api.create_event(sqlite_db, "agg-001", "HA", "HA+LB")

    def condemned():  # its BMC proved it off: HA claims and fences it while Nova still counts it up
        db_api.claim_hypervisor(sqlite_db, h.TARGET, ha_event)
    status, _ = _run(sqlite_db, _AtPoll(region, condemned), rec_id, region)
    assert status == "failed" and not region.hosts[h.TARGET].forced_down
    error = db_api.list_operations(sqlite_db, rec_id)[-1]["error"]
    assert error.startswith("the target %s is down: KeyVRM condemned it (state fencing)" % h.TARGET)
