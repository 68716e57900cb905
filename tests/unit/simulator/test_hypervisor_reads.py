"""The simulated cloud shows hypervisors as the OpenStack driver reads them from real Nova.

Hypervisors API 2.87 + Placement: type, version, ``cpu_info`` and libvirt's arch traits,
never the node's ``supported_instances``; a crashed host is read like any other. The
simulated Nova keeps ``supported_instances`` to itself and refuses an image the target
cannot run, as Nova's ImagePropertiesFilter does when KeyVRM's unchecked guess was wrong.
"""

from keyvrm.harvest import assemble
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.planning import ha
from keyvrm.planning import reasons
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r
from tests.unit.simulator.helpers import add_vm
from tests.unit.simulator.helpers import small_region


def _harvest(region):
    return assemble.harvest(assemble.HarvestSources(cloud=SimCloudDriver(region)),
                            settings.AppConfig(), now_s=region.now)


def test_sim_hypervisors_carry_what_the_hypervisors_api_reports_and_no_more():
    region = small_region(2)
    region.hosts["cmp-2"].cpu_arch = "aarch64"
    hypervisors = {h.name: h for h in SimCloudDriver(region).list_hypervisors()}
    for hypervisor in hypervisors.values():
        assert set(hypervisor.capabilities) == {"cpu_info"}
        assert hypervisor.hypervisor_type == "QEMU"
    assert hypervisors["cmp-1"].cpu_arch == "x86_64"
    assert {"HW_ARCH_X86_64", "COMPUTE_ARCH_X86_64"} <= set(hypervisors["cmp-1"].traits)
    assert hypervisors["cmp-2"].cpu_arch == "aarch64"
    assert "HW_ARCH_AARCH64" in hypervisors["cmp-2"].traits


def test_a_hypervisor_read_during_a_crash_lists_the_dead_host_before_and_after_nova_sees_it_down():
    region = small_region(3)
    faults.host_dies(region, {"hosts": ["cmp-2"]})
    region.clock.advance(10)  # inside service_down_time: Nova still counts cmp-2 up
    early = _harvest(region)
    region.clock.advance(region.options.service_down_time_s)
    late = _harvest(region)
    for snap, state in ((early, m.SERVICE_UP), (late, m.SERVICE_DOWN)):
        assert snap.source_ok(m.SOURCE_NOVA)
        dead = snap.index().hypervisors["cmp-2"]
        assert dead.service.state == state and dead.cpu_arch == "x86_64"
        assert len(snap.hypervisors) == 3


def test_sim_nova_refuses_an_evacuation_whose_image_the_target_cannot_run():
    region = small_region(3)
    region.images = {"img-kvm": {"hypervisor_type": "kvm", "architecture": "x86_64"}}
    region.hosts["cmp-3"].kvm = False  # no /dev/kvm: the API still says "QEMU"
    vm = add_vm(region, "v1", "cmp-1", volume_backed=False)
    vm.image_id = "img-kvm"
    cloud = SimCloudDriver(region)
    cloud.force_down_service("cmp-1")
    refused = cloud.evacuate("v1", "cmp-3")
    region.clock.advance(30)
    assert cloud.get_migration(refused.id).status == "error"
    # ImagePropertiesFilter refused it; Nova's fault names no filter
    assert cloud.get_migration_fault(refused) == "No valid host was found. There are not enough hosts available."
    assert region.vms["v1"].host == "cmp-1"
    accepted = cloud.evacuate("v1", "cmp-2")
    region.clock.advance(60)
    assert cloud.get_migration(accepted.id).status == "done" and region.vms["v1"].host == "cmp-2"


def test_generated_images_ask_for_arch_and_hypervisor_and_the_default_filters_place_them():
    region = generator.generate({"hosts": 6, "hosts_per_aggregate": 6},
                                {"vms_per_host": 6, "volume_backed_fraction": 0.0,
                                 "server_group_fraction": 0.0, "no_evacuate_fraction": 0.0},
                                r.RegionOptions(seed=5))
    assert all({"architecture", "hw_architecture", "hypervisor_type", "img_hv_type"} & set(props)
               for props in region.images.values())
    dead = next(vm.host for vm in region.vms.values()
                if region.images[vm.image_id].get("img_hv_type") == "kvm")
    SimCloudDriver(region).force_down_service(dead)
    snap = _harvest(region)
    agg = settings.AggregateConfig(name="agg-001", marker="HA", no_op_mode=False)
    plan = ha.plan_evacuation(snap, settings.AppConfig(), agg, m.BusySet(), {dead},
                              allow_rebuild=True)
    on_dead = {vm.id for vm in snap.index().vms_on(dead)}
    assert {move.vm_id for move in plan.moves} == on_dead
    assert not any("ImagePropertiesFilter" in r.message for r in plan.reasons if r.code == reasons.NO_TARGET)
    [info] = [r for r in plan.reasons if r.code == reasons.FILTER_INPUT_UNKNOWN]
    assert "img_hv_type=kvm" in info.message
