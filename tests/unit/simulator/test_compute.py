"""Nova-like semantics of the simulated region's compute API."""

import pytest

from keyvrm.drivers.errors import CloudError
from keyvrm.model.snapshot import ANTI_AFFINITY
from keyvrm.simulator import compute
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import load
from keyvrm.simulator import region as r
from tests.unit.simulator.helpers import add_vm
from tests.unit.simulator.helpers import small_region


def test_evacuate_is_refused_while_source_service_is_up():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    with pytest.raises(CloudError) as err:
        compute.Compute(region).evacuate("vm-1", "cmp-2")
    assert err.value.status_code == 400
    assert str(err.value) == "Compute service of cmp-1 is still in use."
    assert region.vms["vm-1"].host == "cmp-1"


def test_evacuation_of_forced_down_source_ends_shutoff_on_target_keeping_source_usage():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    nova.force_down("cmp-1")
    migration = nova.evacuate("vm-1", "cmp-2")
    assert migration.status == "accepted"
    assert region.vms["vm-1"].host == "cmp-1"  # accepted is not done
    region.clock.advance(300)
    assert migration.status == "done"
    vm = region.vms["vm-1"]
    assert (vm.host, vm.status, vm.task_state) == ("cmp-2", r.SHUTOFF, None)
    assert region.hosts["cmp-1"].used_vcpus == 4  # until its compute restarts
    assert region.hosts["cmp-2"].used_vcpus == 4


def test_evacuation_with_pre_2_95_behaviour_keeps_server_active():
    region = small_region(evacuate_to_shutoff=False)
    add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    nova.force_down("cmp-1")
    nova.evacuate("vm-1", "cmp-2")
    region.clock.advance(300)
    assert region.vms["vm-1"].status == r.ACTIVE


@pytest.mark.parametrize("storage,volume_backed,rebuilt", [
    ("local", False, True), ("shared", False, False), ("local", True, False)])
def test_an_evacuation_rebuilds_an_image_backed_disk_only_where_instance_storage_is_local(
        storage, volume_backed, rebuilt):
    region = small_region(instance_storage=storage)
    add_vm(region, "vm-1", "cmp-1", volume_backed=volume_backed)
    nova = compute.Compute(region)
    nova.force_down("cmp-1")
    nova.evacuate("vm-1", "cmp-2")
    region.clock.advance(300)
    assert region.vms["vm-1"].host == "cmp-2"
    assert region.rebuilt_vms == (["vm-1"] if rebuilt else [])


def test_live_migration_violating_anti_affinity_fails_at_execution_and_vm_stays():
    region = small_region()
    region.server_groups["sg"] = r.ServerGroup("sg", "sg", ANTI_AFFINITY)
    add_vm(region, "vm-1", "cmp-1", group="sg")
    add_vm(region, "vm-2", "cmp-2", group="sg")
    migration = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(300)
    assert migration.status == "error"
    assert migration.error == compute.NOT_ENOUGH_HOSTS  # a filter refused it: Nova names neither host nor filter
    assert region.vms["vm-1"].host == "cmp-1" and region.vms["vm-1"].status == r.ACTIVE
    assert region.vms["vm-1"].task_state is None
    assert region.hosts["cmp-2"].used_vcpus == 4  # the failed claim was released


def test_live_migration_to_full_target_fails_on_placement_capacity():
    region = small_region()
    for i in range(4):
        add_vm(region, f"fill-{i}", "cmp-2")
    add_vm(region, "vm-1", "cmp-1")
    migration = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(300)
    assert migration.status == "error"
    assert migration.error == compute.NO_CANDIDATES  # Placement offered no candidate


def test_an_evacuation_nova_s_scheduler_refuses_leaves_the_server_error_until_evacuated_elsewhere_active():
    """As Nova 34: accepted, then the record "error" and the server ERROR; rebuilt ACTIVE when evacuated again.

    A later evacuation rebuilds the ERROR server ACTIVE (2.95's stopped target state ignored).
    """
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    nova.force_down("cmp-1")
    faults.scheduler_refuses(region, {"hosts": ["cmp-2"], "count": 1})
    refused = nova.evacuate("vm-1", "cmp-2")
    assert refused.status == "accepted"
    region.clock.advance(60)
    assert (refused.status, refused.error) == ("error", "No valid host was found. ")
    vm = region.vms["vm-1"]
    assert (vm.host, vm.status, vm.task_state) == ("cmp-1", r.ERROR, None)
    cloud = simulated.for_region(region).cloud
    assert cloud.get_migration_fault(cloud.get_migration(refused.id)) == "No valid host was found."
    moved = nova.evacuate("vm-1", "cmp-3")
    region.clock.advance(300)
    assert moved.status == "done" and (vm.host, vm.status) == ("cmp-3", r.ACTIVE)


def test_a_live_migration_nova_s_scheduler_refuses_leaves_the_server_as_it_was():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    compute.Compute(region).disable("cmp-2", "maintenance")  # Placement: COMPUTE_STATUS_DISABLED
    migration = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(60)
    assert (migration.status, migration.error) == ("error", compute.NO_CANDIDATES)
    assert (region.vms["vm-1"].host, region.vms["vm-1"].status) == ("cmp-1", r.ACTIVE)


def test_live_migration_moves_the_vms_load_to_the_target():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1", cpu_frac=0.8)
    add_vm(region, "vm-2", "cmp-1", cpu_frac=0.2)
    before_src = load.host_load(region, region.hosts["cmp-1"])[0]
    migration = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(600)
    assert migration.status == "completed"
    now = region.now
    src_cpu = load.host_load(region, region.hosts["cmp-1"], now)[0]
    dst_cpu = load.host_load(region, region.hosts["cmp-2"], now)[0]
    moved = load.vm_load(region, region.vms["vm-1"], now)[0] * 100 / 16
    assert dst_cpu == pytest.approx(moved)
    assert src_cpu < before_src
    assert region.hosts["cmp-1"].used_vcpus == 4 and region.hosts["cmp-2"].used_vcpus == 4


def test_live_migration_takes_longer_for_bigger_dirtier_vms():
    region = small_region()
    region.flavors["big"] = r.Flavor("big", 4, 32768)
    small = add_vm(region, "vm-1", "cmp-1")
    big = region.add_vm(r.VM("vm-2", 2, "vm-2", "cmp-1", "p1", region.flavors["big"],
                             volume_backed=True, dirty_mbps=8000))
    nova = compute.Compute(region)
    assert nova.live_migration_duration_s(big) > 3 * nova.live_migration_duration_s(small)


def test_live_migration_from_down_source_is_refused():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    faults.host_dies(region, {"hosts": ["cmp-1"]})
    region.clock.advance(120)
    with pytest.raises(CloudError) as err:
        compute.Compute(region).live_migrate("vm-1", "cmp-2")
    assert err.value.status_code == 400


def test_nova_503_burst_refuses_calls_then_passes():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    faults.schedule(region, 10, "nova_api_503", {"duration_s": 60})
    region.clock.advance(30)
    with pytest.raises(CloudError) as err:
        nova.live_migrate("vm-1", "cmp-2")
    assert err.value.status_code == 503 and err.value.retryable
    region.clock.advance(60)
    assert nova.live_migrate("vm-1", "cmp-2").status == "accepted"


def test_failed_live_migration_leaves_a_binding_that_blocks_retries_until_deleted():
    region = small_region()
    vm = add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    first = nova.live_migrate("vm-1", "cmp-2")
    region.clock.advance(1.5)
    assert first.status == "preparing"
    region.clock.advance(1.0)
    assert first.status == "running"
    faults.network_partition(region, {"hosts": ["cmp-2"], "duration_s": 60})
    region.clock.advance(120)
    assert first.status == "failed" and vm.host == "cmp-1"
    second = nova.live_migrate("vm-1", "cmp-2")
    region.clock.advance(60)
    assert second.status == "error" and "Binding for port" in second.error
    nova.delete_port_binding(compute.port_id(vm), "cmp-2")
    third = nova.live_migrate("vm-1", "cmp-2")
    region.clock.advance(600)
    assert third.status == "completed" and vm.host == "cmp-2"


def test_stuck_migration_never_finishes():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    faults.migration_stuck(region, {"hosts": ["cmp-2"], "count": 1})
    migration = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(6 * 3600)
    assert migration.status == "running"
    assert region.vms["vm-1"].host == "cmp-1"


def test_a_generic_live_migration_failure_leaves_the_vm_and_no_port_binding_behind():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    faults.migration_fails(region, {"count": 1})
    failed = compute.Compute(region).live_migrate("vm-1", "cmp-2")
    region.clock.advance(600)
    assert failed.status == "failed" and "libvirt error" in failed.error
    assert region.vms["vm-1"].host == "cmp-1" and not region.inactive_bindings
    retried = compute.Compute(region).live_migrate("vm-1", "cmp-2")  # the rule was for one migration
    region.clock.advance(600)
    assert retried.status == "completed" and region.vms["vm-1"].host == "cmp-2"


def test_an_engine_loses_flow_fault_lets_nova_migrate_but_fails_the_caller_once():
    region = small_region()
    add_vm(region, "vm-1", "cmp-1")
    add_vm(region, "vm-2", "cmp-1")
    faults.engine_loses_flow(region, {"count": 1})
    cloud = simulated.for_region(region).cloud
    with pytest.raises(r.EngineFlowLost):
        cloud.live_migrate("vm-1", "cmp-2")
    second = cloud.live_migrate("vm-2", "cmp-2")  # the rule was for one migration
    region.clock.advance(600)
    assert region.vms["vm-1"].host == "cmp-2" and region.vms["vm-2"].host == "cmp-2"
    assert second.id == 2 and [m.status for m in region.migrations.values()] == ["completed", "completed"]
