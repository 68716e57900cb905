"""Inputs no Nova API reports never reject a target: the plan places the VM and says so once.

Hosts are described as the OpenStack driver sees them (hypervisors API 2.87: type
"QEMU", ``cpu_info``; no ``supported_instances``; huge pages not reported). The default
filters then place VMs whose images ask for ``kvm`` or a VM mode, and every plan carries
one info reason, ``filter_input_unknown``, naming what was not checked.
"""


from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import ha
from keyvrm.planning import lb
from keyvrm.planning import reasons
from keyvrm.scheduling import capacity
from tests.unit.planning import builders as b

KVM_IMAGE = m.Image("img-kvm", {"hypervisor_type": "kvm", "architecture": "x86_64"})
HVM_IMAGE = m.Image("img-hvm", {"hw_vm_mode": "hvm", "hw_architecture": "x86_64"})
ARM_IMAGE = m.Image("img-arm", {"hw_architecture": "aarch64"})


def _api_host(name, **kwargs):
    """A libvirt host as the hypervisors API and Placement report it (no huge pages known)."""
    kwargs.setdefault("traits", ("HW_ARCH_X86_64", "COMPUTE_ARCH_X86_64"))
    host = b.host(name, hypervisor_type="QEMU", hypervisor_version=8002000,
                  capabilities={"cpu_info": {"arch": "x86_64", "model": "Nehalem"}}, **kwargs)
    return m.replace(host, hugepages=None)


def _dead(name="dead"):
    return _api_host(name, state=m.SERVICE_DOWN)


def _evacuate(hosts, vms, images, app=None):
    snap = b.snapshot(hosts, vms, images=images)
    return ha.plan_evacuation(snap, app or AppConfig(), b.agg_config(), m.BusySet(), {"dead"},
                              allow_rebuild=True)


def _unknown(plan):
    return [r for r in plan.reasons if r.code == reasons.FILTER_INPUT_UNKNOWN]


def test_evacuation_places_vms_whose_image_kvm_no_api_can_confirm_with_one_info_reason():
    vms = [b.vm("v-kvm", "dead", image_id=KVM_IMAGE.id, volume_backed=False),
           b.vm("v-kvm2", "dead", image_id=KVM_IMAGE.id, volume_backed=False),
           b.vm("v-hvm", "dead", image_id=HVM_IMAGE.id, volume_backed=False)]
    plan = _evacuate([_dead(), _api_host("h1"), _api_host("h2")], vms, [KVM_IMAGE, HVM_IMAGE])
    assert {move.vm_id for move in plan.moves} == {"v-kvm", "v-kvm2", "v-hvm"}
    [info] = _unknown(plan)
    assert "ImagePropertiesFilter could not check img_hv_type=kvm" in info.message
    assert "for 2 VMs" in info.message and "treated as passing" in info.message
    assert "hw_vm_mode" not in info.message  # libvirt runs hvm only: known, checked
    assert not info.is_error and not info.is_warning
    assert reasons.state_of(plan.reasons) == "healthy"


def test_evacuation_still_rejects_what_the_api_does_tell():
    vm = b.vm("v-arm", "dead", image_id=ARM_IMAGE.id, volume_backed=False)
    plan = _evacuate([_dead(), _api_host("h1"), _api_host("h2")], [vm], [ARM_IMAGE])
    assert plan.moves == ()
    [why] = [r for r in plan.reasons if r.code == reasons.NO_TARGET]
    assert "2 hosts rejected by ImagePropertiesFilter" in why.message
    assert _unknown(plan) == []


def test_a_plan_without_unknown_inputs_has_no_info_reason():
    vm = b.vm("v", "dead", image_id=HVM_IMAGE.id, volume_backed=False)
    plan = _evacuate([_dead(), _api_host("h1")], [vm], [HVM_IMAGE])
    assert [move.vm_id for move in plan.moves] == ["v"] and _unknown(plan) == []


def test_huge_page_vm_is_placed_on_hosts_whose_pages_no_api_reports():
    huge = b.vm("v-huge", "dead", fl=b.flavor(**{"hw:mem_page_size": "1GB"}))
    app = AppConfig(nova_filters=AppConfig().nova_filters + ("NUMATopologyFilter",))
    plan = _evacuate([_dead(), _api_host("h1")], [huge], [], app)
    assert [move.target for move in plan.moves] == ["h1"]
    [info] = _unknown(plan)
    assert "Placement capacity could not check hw:mem_page_size=1048576 on 1 host" in info.message
    assert "NUMATopologyFilter could not check hw:mem_page_size=1048576" in info.message


def test_reported_huge_pages_are_still_counted():
    full = b.host("h1", hugepages=[m.HugePages(1048576, 4, 0)])
    huge = b.vm("v-huge", "dead", fl=b.flavor(ram_mb=4096, **{"hw:mem_page_size": "1GB"}))
    request = capacity.resource_request_of(huge)
    assert capacity.capacity_rejection(b.host_state(full), request) == capacity.HUGEPAGES_DEPLETED
    unreported = b.host_state(m.replace(full, hugepages=None))
    assert capacity.capacity_rejection(unreported, request) is None
    assert capacity.pages_unknown(unreported, request)


def test_lb_plan_reports_unknown_inputs_of_the_targets_it_chose():
    hosts = [_api_host("hot", vcpus=40, ram_mb=81920, cpu_pct=90.0, ram_pct=90.0,
                       used_vcpus=36, used_ram_mb=73728),
             _api_host("cool", vcpus=40, ram_mb=81920, cpu_pct=20.0, ram_pct=20.0)]
    vms = [b.vm("v%d" % i, "hot", vcpus=9, ram_mb=18432, image_id=KVM_IMAGE.id,
                metrics=m.VMMetrics(cpu_cores=9, ram_mb=18432)) for i in range(4)]
    snap = b.snapshot(hosts, vms, images=[KVM_IMAGE])
    plan = lb.plan_balancing(snap, AppConfig(), b.agg_config(
        lb_weights={"cpu": 1.0, "ram": 1.0, "net": 0.0, "hugepages": 0.0}), m.BusySet())
    assert plan.moves and all(move.target == "cool" for move in plan.moves)
    [info] = _unknown(plan)
    assert "img_hv_type=kvm on 1 host" in info.message


def test_an_evacuation_planned_twice_reports_only_the_kept_plans_unchecked_inputs():
    # spreading leaves two VMs behind (v3 among its four), most free RAM first places five
    # (not v3): the plan kept says it placed 5 VMs unchecked, not the 6 both plans passed
    hosts = [_dead(), _api_host("h0", vcpus=8, ram_mb=8192), _api_host("h1", vcpus=4, ram_mb=4096),
             _api_host("h2", vcpus=8, ram_mb=16384)]
    flavors = {"v2": (4, 8192), "v0": (2, 8192), "v5": (4, 4096), "v3": (1, 8192), "v4": (4, 2048), "v1": (1, 2048)}
    vms = [b.vm(vm_id, "dead", vcpus, ram_mb, image_id=KVM_IMAGE.id, volume_backed=False)
           for vm_id, (vcpus, ram_mb) in flavors.items()]
    plan = _evacuate(hosts, vms, [KVM_IMAGE])
    assert sorted(move.vm_id for move in plan.moves) == ["v0", "v1", "v2", "v4", "v5"]
    [info] = _unknown(plan)
    assert "for 5 VMs" in info.message
