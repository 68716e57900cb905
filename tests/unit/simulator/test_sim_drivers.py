"""The sim drivers: their reads assemble into a RegionSnapshot that round-trips the codec."""

import pytest

from keyvrm.drivers.errors import CloudError
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import FencingError
from keyvrm.drivers.errors import NotFoundInCloud
from keyvrm.model import codec
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator.drivers.fencing import SimBlocklistDriver
from keyvrm.simulator.drivers.fencing import SimPowerDriver
from keyvrm.simulator.drivers.heartbeat import SimHeartbeatDriver
from keyvrm.simulator.drivers.metrics import SimMetricsDriver
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r


def _region():
    return generator.generate({"hosts": 12, "hosts_per_aggregate": 6,
                               "hugepages_aggregates": 1},
                              {"vms_per_host": 5, "server_group_fraction": 0.3},
                              r.RegionOptions(seed=11))


def _snapshot(region):
    cloud = SimCloudDriver(region)
    services = {s.host: s for s in cloud.list_compute_services()}
    inventories = cloud.list_inventories()
    host_metrics = SimMetricsDriver(region).host_metrics()
    vm_metrics = SimMetricsDriver(region).vm_metrics()
    beats = SimHeartbeatDriver(region).last_heartbeats()
    hypervisors = tuple(
        m.Hypervisor(**{**{f: getattr(h, f) for f in m.fields(m.Hypervisor)},
                        "service": services[h.name], "inventories": inventories[h.name],
                        "metrics": host_metrics.get(h.name), "heartbeat_at": beats.get(h.name)})
        for h in cloud.list_hypervisors())
    vms = tuple(m.VM(**{**{f: getattr(v, f) for f in m.fields(m.VM)},
                        "metrics": vm_metrics.get(v.id)})
                for v in cloud.list_servers())
    return m.RegionSnapshot(
        region=region.name, taken_at=region.now,
        availability_zones=tuple(cloud.list_availability_zones()),
        aggregates=tuple(cloud.list_aggregates()), hypervisors=hypervisors, vms=vms,
        server_groups=tuple(cloud.list_server_groups()), images=tuple(cloud.list_images()),
        migrations=tuple(cloud.list_migrations()),
        sources={n: m.SourceStatus(n, True) for n in m.SOURCES})


def test_sim_driver_reads_assemble_into_a_snapshot_that_round_trips_the_codec():
    region = _region()
    cloud = SimCloudDriver(region)
    vm = next(v for v in region.vms.values() if v.host == "cmp-00001")
    cloud.force_down_service("cmp-00001")
    cloud.evacuate(vm.id, "cmp-00002")
    region.clock.advance(30)
    snap = _snapshot(region)
    assert codec.loads(codec.dumps(snap)) == snap
    index = snap.index()
    assert len(snap.hypervisors) == 12 and len(snap.vms) == len(region.vms)
    assert index.hypervisors["cmp-00001"].service.state == m.SERVICE_DOWN
    assert index.hypervisors["cmp-00001"].hugepages[0].page_size_kb == 1048576
    assert index.vms[vm.id].host == "cmp-00002"
    assert snap.migrations[0].status == "done"
    inv = index.hypervisors["cmp-00002"].inventories[m.VCPU]
    assert inv.used == sum(v.flavor.vcpus for v in index.vms_on("cmp-00002"))


def test_cloud_driver_maps_nova_errors_and_polls_migrations():
    region = _region()
    cloud = SimCloudDriver(region)
    vm = next(iter(region.vms.values()))
    with pytest.raises(CloudError) as err:
        cloud.evacuate(vm.id, "cmp-00003")
    assert err.value.status_code == 400 and err.value.cloud_code == "service_in_use"
    with pytest.raises(NotFoundInCloud):
        cloud.get_migration(99)
    faults.nova_api_503(region, {"duration_s": 30})
    with pytest.raises(CloudError) as err:
        cloud.list_servers()
    assert err.value.status_code == 503


def test_disable_and_enable_service_set_status_and_reason():
    cloud = simulated.for_region(_region()).cloud
    service = cloud.disable_service("cmp-00004", "keyvrm: maintenance after evacuation")
    assert service.status == m.SERVICE_DISABLED
    assert service.disabled_reason == "keyvrm: maintenance after evacuation"
    assert cloud.enable_service("cmp-00004").is_enabled


def test_metrics_of_a_dead_host_are_missing_and_outage_raises():
    region = _region()
    faults.host_dies(region, {"hosts": ["cmp-00005"]})
    faults.interface_down(region, {"hosts": ["cmp-00006"], "interface": "bond0"})
    metrics = SimMetricsDriver(region).host_metrics()
    assert metrics["cmp-00005"] == m.HostMetrics()
    assert metrics["cmp-00006"].down_interfaces == ("bond0",)
    assert metrics["cmp-00006"].interfaces_known
    assert metrics["cmp-00001"].hugepages_pct is not None
    faults.metrics_outage(region, {"duration_s": 60})
    with pytest.raises(DriverUnavailable):
        SimMetricsDriver(region).vm_metrics()


def test_heartbeat_driver_shows_a_dead_host_going_stale():
    region = _region()
    faults.host_dies(region, {"hosts": ["cmp-00002"]})
    region.clock.advance(300)
    beats = SimHeartbeatDriver(region).last_heartbeats()
    assert region.now - beats["cmp-00002"] >= 300
    assert region.now - beats["cmp-00001"] <= 10


def test_power_driver_fences_and_reports_refusals_and_timeouts():
    region = _region()
    bmc = SimPowerDriver(region)
    bmc.power_off("cmp-00001")
    region.clock.advance(10)
    assert bmc.get_power_state("cmp-00001") == "off"
    faults.bmc_fault(region, {"hosts": ["cmp-00002"], "mode": r.BMC_REFUSE})
    faults.bmc_fault(region, {"hosts": ["cmp-00003"], "mode": r.BMC_TIMEOUT})
    with pytest.raises(FencingError):
        bmc.power_off("cmp-00002")
    with pytest.raises(DriverUnavailable):
        bmc.get_power_state("cmp-00003")
    faults.host_dies(region, {"hosts": ["cmp-00004"], "bmc": "unreachable"})
    with pytest.raises(DriverUnavailable):
        bmc.get_power_state("cmp-00004")


def test_power_driver_boots_a_fenced_host_with_its_guests_off():
    region = _region()
    bmc = SimPowerDriver(region)
    bmc.power_off("cmp-00001")
    region.clock.advance(10)
    bmc.power_on("cmp-00001")
    assert bmc.get_power_state("cmp-00001") == "off"
    region.clock.advance(10)
    host = region.hosts["cmp-00001"]
    assert bmc.get_power_state("cmp-00001") == "on" and host.compute_running
    assert all(vm.status == r.SHUTOFF and not vm.running for vm in host.vms)


def test_ceph_blocklist_adds_lists_and_expires():
    region = _region()
    ceph = SimBlocklistDriver(region)
    ceph.add("10.0.0.1:0/0")
    ceph.add("10.0.0.2:0/0", expire_s=60)
    assert ceph.list_addresses() == {"10.0.0.1:0/0", "10.0.0.2:0/0"}
    region.clock.advance(61)
    assert ceph.list_addresses() == {"10.0.0.1:0/0"}
    with pytest.raises(FencingError):
        ceph.add("10.0.0.3")


def test_one_server_read_matches_the_list_and_a_gone_server_is_not_found():
    region = _region()
    cloud = SimCloudDriver(region)
    listed = {vm.id: vm for vm in cloud.list_servers()}
    some_id = sorted(listed)[0]
    assert cloud.get_server(some_id) == listed[some_id]
    with pytest.raises(NotFoundInCloud):
        cloud.get_server("no-such-server")
