"""The simulated region's cold migration, as real Nova 34 does it on the fake cloud (tests/e2e shows it there)."""

import pytest

from keyvrm.drivers.errors import CloudError
from keyvrm.model.snapshot import ANTI_AFFINITY
from keyvrm.simulator import compute
from keyvrm.simulator import faults
from keyvrm.simulator import region as r
from tests.unit.simulator.helpers import add_vm
from tests.unit.simulator.helpers import small_region


def _stopped(region, vm_id, host):
    vm = add_vm(region, vm_id, host)
    vm.status, vm.running = r.SHUTOFF, False
    return vm


def _refusal(call, *args):
    with pytest.raises(CloudError) as err:
        call(*args)
    return err.value.status_code, str(err.value)


def test_a_stopped_server_waits_verify_resize_on_the_target_until_confirmed_then_is_shutoff_there():
    region = small_region()
    vm = _stopped(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    migration = nova.cold_migrate("vm-1", "cmp-2")
    assert (migration.migration_type, migration.status, vm.host, vm.task_state) == (
        "migration", "pre-migrating", "cmp-1", "resize_prep")  # accepted is not done
    region.clock.advance(300)
    assert (migration.status, vm.host, vm.status, vm.task_state) == ("finished", "cmp-2", "VERIFY_RESIZE", None)
    # both hosts hold it until the confirmation: the source's allocation is the migration's
    assert (region.hosts["cmp-1"].used_vcpus, region.hosts["cmp-2"].used_vcpus) == (4, 4)
    nova.confirm_resize("vm-1")
    assert migration.status == "confirming"
    region.clock.advance(60)
    assert (migration.status, vm.host, vm.status, vm.task_state, vm.running) == (
        "confirmed", "cmp-2", r.SHUTOFF, None, False)
    assert (region.hosts["cmp-1"].used_vcpus, region.hosts["cmp-2"].used_vcpus) == (0, 4)
    assert vm in region.hosts["cmp-2"].vms and vm not in region.hosts["cmp-1"].vms


def test_a_running_server_is_powered_off_for_the_copy_and_active_again_on_the_target():
    region = small_region()
    vm = add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    migration = nova.cold_migrate("vm-1", "cmp-2")
    region.clock.advance(region.options.scheduling_delay_s + 0.1)
    assert (migration.status, vm.task_state, vm.running) == ("migrating", "resize_migrating", False)
    region.clock.advance(300)
    assert (vm.status, vm.running) == ("VERIFY_RESIZE", True)
    nova.confirm_resize("vm-1")
    region.clock.advance(60)
    assert (migration.status, vm.host, vm.status) == ("confirmed", "cmp-2", r.ACTIVE)


def test_the_migrate_api_refuses_what_nova_refuses_with_novas_answers():
    region = small_region()
    paused = add_vm(region, "vm-p", "cmp-1")
    paused.status = "PAUSED"
    busy = add_vm(region, "vm-b", "cmp-1")
    busy.task_state = "migrating"
    add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    assert _refusal(nova.cold_migrate, "vm-p", "cmp-2") == (
        409, "Cannot 'migrate' instance vm-p while it is in vm_state paused")
    assert _refusal(nova.cold_migrate, "vm-b", "cmp-2") == (
        409, "Cannot 'migrate' instance vm-b while it is in task_state migrating")
    assert _refusal(nova.cold_migrate, "vm-1", "cmp-1") == (400, "Cannot migrate to the host where the server exists.")
    assert _refusal(nova.cold_migrate, "vm-1", "nohost") == (400, "Compute host nohost could not be found.")
    faults.host_dies(region, {"hosts": ["cmp-1"]})
    region.clock.advance(120)
    assert _refusal(nova.cold_migrate, "vm-1", "cmp-2") == (409, "Service is unavailable at this time.")
    assert not region.migrations


def test_confirm_resize_of_a_server_not_resized_is_refused_naming_its_vm_state():
    region = small_region()
    _stopped(region, "vm-1", "cmp-1")
    assert _refusal(compute.Compute(region).confirm_resize, "vm-1") == (
        409, "Cannot 'confirmResize' instance vm-1 while it is in vm_state stopped")


def test_a_cold_migration_the_scheduler_refuses_ends_error_and_the_server_stays_as_it_was():
    region = small_region()
    region.server_groups["sg"] = r.ServerGroup("sg", "sg", ANTI_AFFINITY)
    vm = _stopped(region, "vm-1", "cmp-1")
    vm.server_group_id = "sg"
    region.server_groups["sg"].members += ["vm-1", "vm-2"]
    add_vm(region, "vm-2", "cmp-2", group="sg")
    migration = compute.Compute(region).cold_migrate("vm-1", "cmp-2")
    region.clock.advance(300)
    assert migration.status == "error" and "ServerGroupAntiAffinityFilter" in migration.error
    assert (vm.host, vm.status, vm.task_state) == ("cmp-1", r.SHUTOFF, None)
    assert region.hosts["cmp-2"].used_vcpus == 4  # no claim left behind


def test_a_confirmation_the_dead_source_never_gets_stays_confirming():
    region = small_region()
    vm = add_vm(region, "vm-1", "cmp-1")
    nova = compute.Compute(region)
    migration = nova.cold_migrate("vm-1", "cmp-2")
    region.clock.advance(300)
    nova.confirm_resize("vm-1")
    region.set_host_condition(region.hosts["cmp-1"], compute_running=False)
    region.clock.advance(60)
    assert (migration.status, vm.status) == ("confirming", "VERIFY_RESIZE")
    assert region.hosts["cmp-1"].used_vcpus == 4
