"""The OpenStack driver's reads and errors against real Nova and Placement over HTTP."""


import pytest

from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.cloud import openstack_http
from keyvrm.drivers import errors
from keyvrm.harvest import assemble
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity
from keyvrm.scheduling import filters
from keyvrm.scheduling.host_state import HostState
from keyvrm.scheduling.request import PlacementRequest
from tests.nova import conftest as c


@pytest.fixture(scope="module")
def layout(fake_cloud):
    """An anti-affinity group of two, a server with metadata (aggregates: the session's)."""
    drv = openstack.from_endpoints(fake_cloud.service_endpoints)
    group = c.server_group(drv, "sg-read", "anti-affinity")
    members = [c.boot(drv, "read-anti-%d" % i, host, group_id=group)
               for i, host in enumerate(["compute000", "compute001"])]
    tagged = c.boot(drv, "read-tagged", "compute002", metadata={"keyvrm_no_evac": "true"})
    return {"group": group, "members": members, "tagged": tagged}


def test_servers_match_nova_with_host_flavor_group_and_metadata(driver, layout):
    vms = {vm.id: vm for vm in driver.list_servers()}
    for server_id in layout["members"] + [layout["tagged"]]:
        raw = c.server(driver, server_id)
        vm = vms[server_id]
        assert vm.host == raw["OS-EXT-SRV-ATTR:host"]
        assert (vm.flavor.vcpus, vm.flavor.ram_mb, vm.flavor.name) == (1, 512, "m1.tiny")
        assert vm.status == "ACTIVE" and vm.image_id == c.IMAGE and not vm.volume_backed
    assert {vms[s].server_group_id for s in layout["members"]} == {layout["group"]}
    assert vms[layout["tagged"]].metadata == {"keyvrm_no_evac": "true"}


def test_one_server_read_matches_the_listed_one_and_a_gone_server_is_not_found(driver, layout):
    listed = {vm.id: vm for vm in driver.list_servers()}
    for server_id in layout["members"] + [layout["tagged"]]:
        assert driver.get_server(server_id) == listed[server_id]
    with pytest.raises(errors.NotFoundInCloud):
        driver.get_server("00000000-0000-4000-8000-00000000dead")


def test_server_groups_aggregates_and_zones_match_nova(driver, layout):
    [group] = [g for g in driver.list_server_groups() if g.id == layout["group"]]
    assert group.policy == m.ANTI_AFFINITY and set(group.members) == set(layout["members"])
    aggs = {a.name: a for a in driver.list_aggregates()}
    assert aggs["agg-read-a"].hosts == ("compute000", "compute001")
    assert aggs["agg-read-a"].availability_zone == "az-read"
    assert aggs["agg-read-a"].metadata == {"availability_zone": "az-read", "keyvrm": "yes"}
    assert {z.name for z in driver.list_availability_zones()} >= {"az-read", "nova"}
    hypervisors = {h.name: h for h in driver.list_hypervisors()}
    assert hypervisors["compute000"].availability_zone == "az-read"
    assert hypervisors["compute000"].aggregates == ("agg-read-a",)
    assert hypervisors["compute003"].availability_zone == "nova"
    assert "COMPUTE_NODE" in hypervisors["compute003"].traits


def test_a_disabled_compute_keeps_the_zone_of_its_aggregate(driver, layout):
    # Nova's zone list leaves a disabled service out (a fenced host: issue 32 item 8)
    driver.disable_service("compute000", "KeyVRM test: fenced")
    try:
        zones = c.nova(driver, "GET", "/os-availability-zone/detail", "2.1")["availabilityZoneInfo"]
        assert not any("compute000" in (z.get("hosts") or {}) for z in zones)
        hypervisors = {h.name: h for h in driver.list_hypervisors()}
        assert hypervisors["compute000"].availability_zone == "az-read"
    finally:
        driver.enable_service("compute000")


def test_inventories_and_usages_match_placement(driver, layout):
    inventories = driver.list_inventories()
    placement = driver.conn.placement
    providers = openstack_http.call(placement, "GET", "/resource_providers",
                                    microversion="1.39")["resource_providers"]
    assert set(inventories) == {p["name"] for p in providers}
    for provider in providers:
        raw_inv = openstack_http.call(placement, "GET", "/resource_providers/%s/inventories"
                                      % provider["uuid"], microversion="1.39")["inventories"]
        raw_use = openstack_http.call(placement, "GET", "/resource_providers/%s/usages"
                                      % provider["uuid"], microversion="1.39")["usages"]
        ours = inventories[provider["name"]]
        for rc, inv in raw_inv.items():
            assert (ours[rc].total, ours[rc].reserved, ours[rc].allocation_ratio, ours[rc].max_unit) \
                == (inv["total"], inv["reserved"], inv["allocation_ratio"], inv["max_unit"])
            assert ours[rc].used == raw_use.get(rc, 0)
    assert inventories["compute000"][m.VCPU].used >= 1  # an anti-affinity member lives there


def test_services_match_nova(driver, layout):
    def all_up():
        # An earlier test restarted a compute, and a loaded machine can delay a report past the
        # fake cloud's 6 s service_down_time: wait for Nova to show every compute up again.
        read = {s.host: s for s in driver.list_compute_services()}
        return read if all(s.state == m.SERVICE_UP and s.status == m.SERVICE_ENABLED and not s.forced_down
                           for s in read.values() if s.host.startswith("compute00")) else None
    services = c.wait_for(all_up, timeout_s=30.0, interval_s=0.5)
    assert set(services) >= {"compute000", "compute004"}
    # the compute may report between the two reads: all but the report time must match
    assert m.replace(driver.get_service("compute001"), updated_at=None) == \
        m.replace(services["compute001"], updated_at=None)
    with pytest.raises(errors.NotFoundInCloud):
        driver.get_service("no-such-host")


def test_images_carry_the_properties_nova_filters_read(driver):
    images = {i.id: i for i in driver.list_images()}
    assert images[c.IMAGE].properties["architecture"] == "x86_64"


def test_hypervisors_carry_the_type_and_cpu_arch_the_image_filter_checks(driver, layout):
    raw = {h["service"]["host"]: h for h in c.nova(driver, "GET", "/os-hypervisors/detail",
                                                   "2.87")["hypervisors"]}
    hypervisors = [h for h in driver.list_hypervisors() if h.name.startswith("compute")]
    image_filter = filters.build_filters(["ImagePropertiesFilter"])[0]
    vm = {v.id: v for v in driver.list_servers()}[layout["tagged"]]
    booted = {i.id: i for i in driver.list_images()}[vm.image_id]  # architecture=x86_64
    arm = m.Image("arm", {"hw_architecture": "aarch64", "img_hv_type": "fake"})
    for hyp in hypervisors:
        assert (hyp.hypervisor_type, hyp.cpu_arch) == (raw[hyp.name]["hypervisor_type"],
                                                       raw[hyp.name]["cpu_info"]["arch"]) == ("fake", "x86_64")
        state = HostState(hyp, ())
        ask = PlacementRequest(vm=vm, resources=capacity.resource_request_of(vm, booted), image=booted)
        assert image_filter.rejection(state, ask) is None and image_filter.unchecked(state, ask) == ()
        ask_arm = PlacementRequest(vm=vm, resources=ask.resources, image=arm)
        assert "aarch64" in image_filter.rejection(state, ask_arm)  # the fake driver runs x86_64 only


def test_nova_503_is_a_cloud_error_recorded_by_the_harvest(fake_cloud, driver):
    driver.list_compute_services()  # version discovery done before the fault
    cold = openstack.from_endpoints(fake_cloud.service_endpoints)
    fake_cloud.fault(503)
    try:
        with pytest.raises(errors.CloudError) as caught:
            driver.list_servers()
        assert caught.value.status_code == 503 and caught.value.retryable
        with pytest.raises(errors.DriverUnavailable):  # 503 to the discovery request
            cold.list_servers()
        snap = assemble.harvest(assemble.HarvestSources(cloud=driver), settings.AppConfig(),
                                now_s=0.0)
    finally:
        fake_cloud.fault(None)
    assert not snap.sources[m.SOURCE_NOVA].ok and "503" in snap.sources[m.SOURCE_NOVA].error
    assert snap.sources[m.SOURCE_PLACEMENT].ok


def test_an_unreachable_cloud_is_driver_unavailable():
    drv = openstack.from_endpoints({"compute": "http://127.0.0.1:9/v2.1"})
    with pytest.raises(errors.DriverUnavailable):
        drv.list_compute_services()
