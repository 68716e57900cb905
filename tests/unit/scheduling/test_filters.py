"""Each emulated Nova filter: passes, rejects with a reason, and the registry's names."""


import pytest

from keyvrm.model.settings import KNOWN_NOVA_FILTERS
from keyvrm.model import snapshot as m
from keyvrm.scheduling import filters
from tests.unit.planning import builders as b


def _one(name, **options):
    return filters.build_filters([name], {name: options} if options else None)[0]


def _agg(**metadata):
    return m.Aggregate("a", 1, metadata=metadata)


def test_registry_names_are_exactly_the_known_nova_filters():
    assert filters.filter_names() == tuple(sorted(KNOWN_NOVA_FILTERS))


def test_empty_filter_list_builds_no_filters():
    assert filters.build_filters([]) == ()


def test_unknown_filter_name_is_refused():
    with pytest.raises(KeyError):
        filters.build_filters(["NoSuchFilter"])


@pytest.mark.parametrize("state,status,passes", [
    (m.SERVICE_UP, m.SERVICE_ENABLED, True),
    (m.SERVICE_DOWN, m.SERVICE_ENABLED, False),
    (m.SERVICE_UP, m.SERVICE_DISABLED, False),
])
def test_compute_filter_needs_up_and_enabled_service(state, status, passes):
    hs = b.host_state(b.host("h", state=state, status=status))
    f = _one("ComputeFilter")
    assert f.host_passes(hs, b.request(b.vm("v", "x"))) is passes
    assert (f.rejection(hs, b.request(b.vm("v", "x"))) is None) is passes


def test_compute_capabilities_filter_matches_scoped_and_unscoped_keys():
    hs = b.host_state(b.host("h", capabilities={"cpu_info": {"arch": "x86_64"}, "ssd": "1"}))
    f = _one("ComputeCapabilitiesFilter")
    ok = b.vm("v", "x", fl=b.flavor(**{"capabilities:cpu_info:arch": "x86_64",
                                       "hw:cpu_policy": "dedicated"}))
    assert f.host_passes(hs, b.request(ok)) and f.unchecked(hs, b.request(ok)) == ()
    bad = b.vm("v", "x", fl=b.flavor(**{"capabilities:cpu_info:arch": "aarch64"}))
    assert "does not match" in f.rejection(hs, b.request(bad))
    missing_nested = b.vm("v", "x", fl=b.flavor(**{"capabilities:cpu_info:vendor": "Intel"}))
    assert "not reported" in f.rejection(hs, b.request(missing_nested))
    unscoped_unknown = b.vm("v", "x", fl=b.flavor(gpu="<in> yes"))
    assert f.host_passes(hs, b.request(unscoped_unknown))
    unscoped_known = b.vm("v", "x", fl=b.flavor(ssd="0"))
    assert not f.host_passes(hs, b.request(unscoped_known))
    by_type = b.vm("v", "x", fl=b.flavor(**{"capabilities:hypervisor_type": "s== QEMU"}))
    assert f.host_passes(hs, b.request(by_type))


def test_compute_capabilities_filter_passes_keys_on_attributes_no_api_reports_and_names_them():
    hs = b.host_state(b.host("h", capabilities={"cpu_info": {"arch": "x86_64"}}))
    f = _one("ComputeCapabilitiesFilter")
    stats = b.request(b.vm("v", "x", fl=b.flavor(**{"capabilities:gpu": "<in> yes"})))
    assert f.host_passes(hs, stats)
    assert f.unchecked(hs, stats) == (("capabilities:gpu", "compute node stats are in no Nova API"),)
    numa = b.request(b.vm("v", "x", fl=b.flavor(**{"capabilities:numa_topology": "x",
                                                   "vcpus_used": "<= 4"})))
    assert f.host_passes(hs, numa)
    assert {what for what, _ in f.unchecked(hs, numa)} == {"capabilities:numa_topology", "vcpus_used"}
    still_checked = b.request(b.vm("v", "x", fl=b.flavor(**{"capabilities:gpu": "yes",
                                                            "capabilities:cpu_info:arch": "ppc64le"})))
    assert "does not match" in f.rejection(hs, still_checked)


def test_compute_capabilities_filter_decodes_json_and_maxphysaddr_bits():
    hs = b.host_state(b.host("h", capabilities={
        "cpu_info": '{"arch": "x86_64", "maxphysaddr": {"bits": 46}}'}))
    f = _one("ComputeCapabilitiesFilter")
    assert f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(
        **{"capabilities:cpu_info:arch": "x86_64", "hw:maxphysaddr_bits": "42"}))))
    assert not f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(
        **{"hw:maxphysaddr_bits": "48"}))))


def test_compute_capabilities_filter_numeric_operator():
    hs = b.host_state(b.host("h", capabilities={"cores": "16"}))
    f = _one("ComputeCapabilitiesFilter")
    assert f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(cores=">= 8"))))
    assert not f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(cores=">= 32"))))


def _libvirt(arch="x86_64", traits=(), version=6002000, **kwargs):
    """A libvirt host as the hypervisors API (2.87) and Placement describe it."""
    return b.host_state(b.host("h", hypervisor_type="QEMU", hypervisor_version=version,
                               capabilities={"cpu_info": {"arch": arch}} if arch else {},
                               traits=tuple(traits), **kwargs))


def _image_check(hs, **props):
    f = _one("ImagePropertiesFilter")
    req = b.request(b.vm("v", "x"), m.Image("i", props))
    return f.rejection(hs, req), [what for what, _ in f.unchecked(hs, req)]


def test_image_properties_filter_checks_architecture_and_version_on_a_libvirt_host():
    hs = _libvirt(traits=("HW_ARCH_X86_64", "COMPUTE_ARCH_X86_64"))
    assert _image_check(hs) == (None, [])
    assert _image_check(hs, hw_architecture="x86_64", img_hv_type="QEMU") == (None, [])
    assert _image_check(hs, architecture="i686", vm_mode="hvm") == (None, [])
    why, _ = _image_check(hs, hw_architecture="aarch64")
    assert "hw_architecture=aarch64" in why and "x86_64" in why
    assert "version" in _image_check(hs, hw_architecture="x86_64", img_hv_requested_version=">=7.0")[0]
    assert _image_check(hs, hw_architecture="x86_64",
                        img_hv_requested_version=">= 6.1, <7") == (None, [])
    assert _image_check(hs, img_hv_requested_version=">=7.0") == (None, [])  # alone: unchecked, as Nova


def test_image_properties_filter_on_libvirt_kvm_is_unknown_qemu_known_others_rejected():
    hs = _libvirt(traits=("COMPUTE_ARCH_X86_64", "COMPUTE_ARCH_AARCH64"))
    assert _image_check(hs, hypervisor_type="kvm") == (None, ["img_hv_type=kvm"])
    assert _image_check(hs, img_hv_type="qemu", hw_architecture="aarch64") == (None, [])
    assert "own architecture" in _image_check(hs, img_hv_type="kvm", hw_architecture="aarch64")[0]
    assert "qemu" in _image_check(hs, img_hv_type="xen")[0]
    assert "hvm" in _image_check(hs, hw_vm_mode="xen")[0]
    assert _image_check(hs, hw_vm_mode="HV") == (None, [])  # Nova's alias of hvm


def test_image_properties_filter_passes_what_the_host_does_not_report():
    no_arch = _libvirt(arch=None)
    assert _image_check(no_arch, hw_architecture="aarch64") == (None, ["hw_architecture=aarch64"])
    no_emulation_traits = _libvirt()
    assert _image_check(no_emulation_traits, architecture="ppc64le") == (
        None, ["hw_architecture=ppc64le"])
    armv7 = _libvirt(arch="aarch64", traits=("COMPUTE_ARCH_AARCH64",))
    assert _image_check(armv7, hw_architecture="armv7l") == (None, ["hw_architecture=armv7l"])
    vmware = b.host_state(b.host("h", hypervisor_type="VMware vCenter Server",
                                 capabilities={"cpu_info": {"arch": "x86_64"}}))
    assert _image_check(vmware, hw_architecture="x86_64", img_hv_type="vmware", hw_vm_mode="hvm") == (
        None, ["img_hv_type=vmware", "hw_vm_mode=hvm"])
    assert _image_check(vmware, hw_architecture="i686") == (None, ["hw_architecture=i686"])
    assert _image_check(no_arch, hw_architecture="sparc9") == (None, ["hw_architecture=sparc9"])


def test_image_properties_filter_on_nova_fake_driver_hosts_knows_the_one_triple():
    fake = b.host_state(b.host("h", hypervisor_type="fake", capabilities={"cpu_info": {"arch": "x86_64"}}))
    assert _image_check(fake, architecture="x86_64", hypervisor_type="fake", vm_mode="hvm") == (None, [])
    assert _image_check(fake, hw_architecture="i686")[0]
    assert _image_check(fake, img_hv_type="qemu")[0]


def test_image_properties_filter_default_architecture_and_maxphysaddr_bits():
    hs = b.host_state(b.host("h", hypervisor_type="QEMU", traits=("COMPUTE_ARCH_X86_64",),
                             capabilities={"cpu_info": {"arch": "x86_64", "maxphysaddr": {"bits": 42}}}))
    f = _one("ImagePropertiesFilter", default_architecture="aarch64")
    assert "hw_architecture=aarch64" in f.rejection(hs, b.request(b.vm("v", "x"), m.Image("i")))
    assert f.host_passes(hs, b.request(b.vm("v", "x"), m.Image("i", {"hw_architecture": "x86_64"})))
    assert _image_check(hs, hw_architecture="x86_64", hw_maxphysaddr_bits="40") == (None, [])
    assert "42 physical address bits" in _image_check(hs, hw_architecture="x86_64",
                                                      hw_maxphysaddr_bits="46")[0]


def _group(policy, members=(), **rules):
    return m.ServerGroup("g", "grp", policy, members=tuple(members), rules=rules)


def test_anti_affinity_rejects_host_with_a_member_and_names_the_group():
    group = _group(m.ANTI_AFFINITY, ("a", "new"))
    hs = b.host_state(b.host("h"), [b.vm("a", "h", server_group_id="g")])
    new = b.vm("new", "src", server_group_id="g")
    why = _one("ServerGroupAntiAffinityFilter").rejection(hs, b.request(new, group=group))
    assert "grp" in why
    empty = b.host_state(b.host("h2"))
    assert _one("ServerGroupAntiAffinityFilter").host_passes(empty, b.request(new, group=group))


def test_anti_affinity_max_server_per_host_rule_allows_that_many():
    group = _group(m.ANTI_AFFINITY, ("a", "b", "new"), max_server_per_host=2)
    new = b.vm("new", "src", server_group_id="g")
    one = b.host_state(b.host("h"), [b.vm("a", "h", server_group_id="g")])
    two = b.host_state(b.host("h"), [b.vm("a", "h", server_group_id="g"),
                                     b.vm("b", "h", server_group_id="g")])
    f = _one("ServerGroupAntiAffinityFilter")
    assert f.host_passes(one, b.request(new, group=group))
    assert not f.host_passes(two, b.request(new, group=group))


def test_anti_affinity_does_not_count_the_vm_itself():
    group = _group(m.ANTI_AFFINITY, ("new",))
    new = b.vm("new", "h", server_group_id="g")
    hs = b.host_state(b.host("h"), [new])
    assert _one("ServerGroupAntiAffinityFilter").host_passes(hs, b.request(new, group=group))


def test_soft_anti_affinity_never_rejects():
    group = _group(m.SOFT_ANTI_AFFINITY, ("a", "new"))
    hs = b.host_state(b.host("h"), [b.vm("a", "h", server_group_id="g")])
    new = b.vm("new", "src", server_group_id="g")
    assert _one("ServerGroupAntiAffinityFilter").host_passes(hs, b.request(new, group=group))


def test_affinity_accepts_only_the_hosts_of_placed_members():
    group = _group(m.AFFINITY, ("a", "new"))
    new = b.vm("new", "src", server_group_id="g")
    f = _one("ServerGroupAffinityFilter")
    req = b.request(new, group=group, group_hosts=("h1",))
    assert f.host_passes(b.host_state(b.host("h1")), req)
    assert "lives on h1" in f.rejection(b.host_state(b.host("h2")), req)
    assert f.host_passes(b.host_state(b.host("h2")), b.request(new, group=group))


def test_aggregate_instance_extra_specs_filter():
    hs = b.host_state(b.host("h"), aggregates=[_agg(ssd="true", gen="3")])
    f = _one("AggregateInstanceExtraSpecsFilter")
    assert f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(
        **{"aggregate_instance_extra_specs:ssd": "true", "hw:numa_nodes": "1"}))))
    assert not f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(ssd="false"))))
    assert "no gpu" in f.rejection(hs, b.request(b.vm("v", "x", fl=b.flavor(gpu="1"))))
    assert f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(gen=">= 2"))))


def test_aggregate_image_properties_isolation_with_and_without_namespace():
    hs = b.host_state(b.host("h"), aggregates=[_agg(os_distro="ubuntu,debian", **{
        "ns.tier": "gold"})])
    f = _one("AggregateImagePropertiesIsolation")
    assert f.host_passes(hs, b.request(b.vm("v", "x"), m.Image("i", {"os_distro": "debian"})))
    assert not f.host_passes(hs, b.request(b.vm("v", "x"),
                                           m.Image("i", {"os_distro": "windows"})))
    assert f.host_passes(hs, b.request(b.vm("v", "x"), m.Image("i", {})))
    scoped = _one("AggregateImagePropertiesIsolation", namespace="ns")
    assert scoped.host_passes(hs, b.request(b.vm("v", "x"),
                                            m.Image("i", {"os_distro": "windows"})))
    assert not scoped.host_passes(hs, b.request(b.vm("v", "x"),
                                                m.Image("i", {"ns.tier": "bronze"})))


def test_aggregate_multitenancy_isolation_uses_filter_tenant_id_keys():
    hs = b.host_state(b.host("h"), aggregates=[_agg(filter_tenant_id="p1,p2",
                                                    filter_tenant_id_2="p3")])
    f = _one("AggregateMultiTenancyIsolation")
    assert f.host_passes(hs, b.request(b.vm("v", "x", project="p3")))
    assert "p9" in f.rejection(hs, b.request(b.vm("v", "x", project="p9")))
    assert f.host_passes(b.host_state(b.host("h")), b.request(b.vm("v", "x", project="p9")))


@pytest.mark.parametrize("restrict,image,host,passes", [
    (True, "iso", "isohost", True), (True, "iso", "h", False),
    (True, "plain", "isohost", False), (True, "plain", "h", True),
    (False, "plain", "isohost", True), (False, "iso", "h", False),
])
def test_isolated_hosts_filter(restrict, image, host, passes):
    f = _one("IsolatedHostsFilter", isolated_images=["iso"], isolated_hosts=["isohost"],
             restrict_isolated_hosts_to_isolated_images=restrict)
    hs = b.host_state(b.host(host))
    assert f.host_passes(hs, b.request(b.vm("v", "x", image_id=image))) is passes


def test_isolated_hosts_filter_without_config_passes_everything():
    f = _one("IsolatedHostsFilter")
    assert f.host_passes(b.host_state(b.host("h")), b.request(b.vm("v", "x", image_id="i")))


def test_aggregate_type_affinity_filter():
    hs = b.host_state(b.host("h"), aggregates=[_agg(instance_type="small, medium")])
    f = _one("AggregateTypeAffinityFilter")
    assert f.host_passes(hs, b.request(b.vm("v", "x", fl=b.flavor(name="medium"))))
    assert "large" in f.rejection(hs, b.request(b.vm("v", "x", fl=b.flavor(name="large"))))
    assert f.host_passes(b.host_state(b.host("h")), b.request(b.vm("v", "x")))


def test_num_instances_filters():
    vms = [b.vm("v%d" % i, "h") for i in range(3)]
    hs = b.host_state(b.host("h"), vms, aggregates=[_agg(max_instances_per_host="2")])
    assert _one("NumInstancesFilter", max_instances_per_host=4).host_passes(
        hs, b.request(b.vm("n", "x")))
    assert not _one("NumInstancesFilter", max_instances_per_host=3).host_passes(
        hs, b.request(b.vm("n", "x")))
    assert not _one("AggregateNumInstancesFilter", max_instances_per_host=10).host_passes(
        hs, b.request(b.vm("n", "x")))
    plain = b.host_state(b.host("h"), vms)
    assert _one("AggregateNumInstancesFilter", max_instances_per_host=10).host_passes(
        plain, b.request(b.vm("n", "x")))


def test_same_and_different_host_hints():
    hs = b.host_state(b.host("h"), [b.vm("buddy", "h")])
    same = b.vm("v", "x", scheduler_hints={"same_host": ["buddy"]})
    other = b.vm("v", "x", scheduler_hints={"different_host": "buddy"})
    assert _one("SameHostFilter").host_passes(hs, b.request(same))
    assert not _one("SameHostFilter").host_passes(b.host_state(b.host("h2")), b.request(same))
    assert "buddy" in _one("DifferentHostFilter").rejection(hs, b.request(other))
    assert _one("DifferentHostFilter").host_passes(b.host_state(b.host("h2")),
                                                   b.request(other))
    assert _one("SameHostFilter").host_passes(hs, b.request(b.vm("v", "x")))


def test_numa_topology_filter_checks_page_size():
    huge = b.host_state(b.host("h", hugepages=[m.HugePages(2048, 1000, 1000)]))
    plain = b.host_state(b.host("h2"))
    f = _one("NUMATopologyFilter")
    two_mb = b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "2MB"}))
    one_gb = b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "1GB"}))
    large = b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "large"}))
    assert f.host_passes(huge, b.request(two_mb))
    assert "1048576 KiB" in f.rejection(huge, b.request(one_gb))
    assert f.host_passes(huge, b.request(large))
    assert "no huge pages" in f.rejection(plain, b.request(large))
    assert f.host_passes(plain, b.request(b.vm("v", "x")))
    image_asks = m.Image("i", {"hw_mem_page_size": "2048"})
    assert not f.host_passes(plain, b.request(b.vm("v", "x"), image_asks))
    assert f.unchecked(plain, b.request(large)) == ()


def test_numa_topology_filter_passes_a_host_whose_huge_pages_no_api_reports():
    unreported = b.host_state(m.replace(b.host("h"), hugepages=None))
    f = _one("NUMATopologyFilter")
    large = b.request(b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "large"})))
    assert f.host_passes(unreported, large)
    assert [what for what, _ in f.unchecked(unreported, large)] == ["hw:mem_page_size=large"]
    small = b.request(b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "small"})))
    assert f.host_passes(unreported, small) and f.unchecked(unreported, small) == ()
    garbage = b.request(b.vm("v", "x", fl=b.flavor(**{"hw:mem_page_size": "huge!"})))
    assert "unparseable" in f.rejection(unreported, garbage)
