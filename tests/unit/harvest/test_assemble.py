"""harvest(): a simulated region's drivers assembled into one snapshot, failed sources recorded."""

import math
import threading
import time

import pytest

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.harvest import assemble
from keyvrm.harvest.sources import sources_for_sim
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r


def _region(hosts=12, vms_per_host=5, seed=11):
    return generator.generate({"hosts": hosts, "hosts_per_aggregate": 6, "hugepages_aggregates": 1},
                              {"vms_per_host": vms_per_host, "server_group_fraction": 0.3},
                              r.RegionOptions(seed=seed))


def _harvest(region, app_config=None, **replace):
    sources = sources_for_sim(simulated.for_region(region))
    if replace:
        sources = assemble.HarvestSources(**{**sources.__dict__, **replace})
    return assemble.harvest(sources, app_config or settings.AppConfig(), now_s=region.now)


def test_hypervisors_carry_their_service_inventories_metrics_and_heartbeat():
    region = _region()
    snap = _harvest(region)
    assert all(s.ok for s in snap.sources.values()) and set(snap.sources) == set(m.SOURCES)
    assert snap.region == region.name and snap.taken_at == region.now
    assert len(snap.hypervisors) == 12 and len(snap.vms) == len(region.vms)
    host = snap.index().hypervisors["cmp-00001"]
    sim_host = region.hosts["cmp-00001"]
    assert host.service.host == "cmp-00001" and host.service.is_up
    assert host.inventories[m.VCPU].total == sim_host.vcpus
    assert host.inventories[m.MEMORY_MB].used == sim_host.used_ram_mb
    assert host.metrics.interfaces_known and host.metrics.cpu_pct is not None
    assert host.heartbeat_at == region.last_heartbeat(sim_host)
    assert all(vm.metrics is not None for vm in snap.vms)
    assert codec.loads(codec.dumps(snap)) == snap


def test_vm_metadata_sets_the_flags_with_the_configured_keys():
    region = _region()
    vms = list(region.vms.values())
    vms[0].metadata = {"keep-here": "True", "evacuate_order": " 3 "}
    vms[1].metadata = {"stay": "yes", "ha_no_evacuate": "true", "evacuate_order": "first"}
    vms[2].metadata = {"keep-here": "false", "stay": "0"}
    app = settings.AppConfig(ha_no_evacuate_key="keep-here", lb_no_migrate_key="stay")
    index = _harvest(region, app).index()
    first, second, third = (index.vms[v.id] for v in vms[:3])
    assert (first.no_evac, first.no_migr, first.evacuate_order) == (True, False, 3)
    # The default key is not the configured one: it sets nothing; a bad order is ignored.
    assert (second.no_evac, second.no_migr, second.evacuate_order) == (False, True, None)
    assert (third.no_evac, third.no_migr, third.evacuate_order) == (False, False, None)
    assert first.metadata == {"keep-here": "True", "evacuate_order": " 3 "}


def test_a_nova_outage_is_recorded_and_leaves_the_cloud_parts_empty():
    region = _region()
    faults.nova_api_503(region, {"duration_s": 60})
    snap = _harvest(region)
    for name in (m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE):
        assert not snap.sources[name].ok
        assert "CloudError (HTTP 503)" in snap.sources[name].error
    assert "servers: CloudError (HTTP 503)" in snap.sources[m.SOURCE_NOVA].error
    assert snap.hypervisors == () and snap.vms == () and snap.aggregates == ()
    assert snap.source_ok(m.SOURCE_METRICS) and snap.source_ok(m.SOURCE_HEARTBEAT)


def test_metrics_and_heartbeat_outages_leave_those_fields_missing():
    region = _region()
    faults.metrics_outage(region, {"duration_s": 60})
    faults.heartbeat_outage(region, {"duration_s": 60})
    snap = _harvest(region)
    assert snap.source_ok(m.SOURCE_NOVA)
    assert snap.sources[m.SOURCE_METRICS].error.startswith("host_metrics: DriverUnavailable: TSDB did not answer")
    assert "no Sentinel master" in snap.sources[m.SOURCE_HEARTBEAT].error
    assert all(h.metrics is None and h.heartbeat_at is None and h.service is not None
               for h in snap.hypervisors)
    assert all(vm.metrics is None for vm in snap.vms)


class _PartlyBrokenCloud(SimCloudDriver):
    """The sim cloud whose Placement read fails, whose image read crashes, whose migrations hang."""

    def __init__(self, region, release):
        super().__init__(region)
        self.release = release

    def list_inventories(self):
        raise DriverUnavailable("Placement did not answer: read timed out")

    def list_images(self):
        raise KeyError("name")

    def list_migrations(self, changes_since=None):
        self.release.wait(10)
        return super().list_migrations(changes_since)


def test_a_failing_crashing_or_hanging_read_fails_only_its_source():
    region = _region()
    release = threading.Event()
    try:
        started = time.perf_counter()
        snap = _harvest(region, cloud=_PartlyBrokenCloud(region, release), timeout_s=0.5)
        took = time.perf_counter() - started
    finally:
        release.set()
    assert took < 5
    assert snap.sources[m.SOURCE_PLACEMENT].error == \
        "inventories: DriverUnavailable: Placement did not answer: read timed out"
    assert snap.sources[m.SOURCE_GLANCE].error == "images: KeyError: 'name'"
    assert snap.sources[m.SOURCE_NOVA].error == "migrations: no answer within 0.5 s"
    assert len(snap.hypervisors) == 12 and all(h.inventories == {} for h in snap.hypervisors)
    assert snap.source_ok(m.SOURCE_METRICS)


def test_absent_metrics_and_heartbeat_drivers_are_failed_sources():
    region = _region()
    snap = _harvest(region, metrics=None, heartbeat=None)
    assert snap.sources[m.SOURCE_METRICS] == m.SourceStatus(m.SOURCE_METRICS, False,
                                                            "no metrics driver configured")
    assert not snap.source_ok(m.SOURCE_HEARTBEAT) and snap.source_ok(m.SOURCE_NOVA)
    assert snap.metrics_window_s == assemble.DEFAULT_WINDOW_S


def test_migrations_are_read_since_the_configured_lookback():
    region = _region()
    cloud = SimCloudDriver(region)
    vm = next(v for v in region.vms.values() if v.host == "cmp-00001")
    cloud.force_down_service("cmp-00001")
    cloud.evacuate(vm.id, "cmp-00002")
    region.clock.advance(3600)
    assert len(_harvest(region, migrations_since_s=7200).migrations) == 1
    assert _harvest(region, migrations_since_s=600).migrations == ()
    assert len(_harvest(region, migrations_since_s=None).migrations) == 1


class _CountingMetrics:
    window_s = 120

    def __init__(self):
        self.request_count = 0

    def host_metrics(self, hosts=None):
        self.request_count += 5
        return {"cmp-00001": m.HostMetrics(cpu_pct=math.pi)}

    def vm_metrics(self, vm_ids=None):
        self.request_count += 3
        return {}

    def targets_up(self, hosts=None):
        self.request_count += 1
        return {"cmp-00001": False}


def test_request_counts_and_window_come_from_the_drivers():
    region = _region()
    snap = _harvest(region, metrics=_CountingMetrics())
    assert snap.sources[m.SOURCE_METRICS].requests == 9
    assert snap.metrics_window_s == 120.0
    index = snap.index()
    assert index.hypervisors["cmp-00001"].metrics.cpu_pct == math.pi
    assert index.hypervisors["cmp-00002"].metrics is None
    assert (index.hypervisors["cmp-00001"].target_up, index.hypervisors["cmp-00002"].target_up) == (False, None)


@pytest.mark.parametrize("hosts,vms_per_host,bound_s", [(1000, 20, 10.0)])
def test_a_1k_host_20k_vm_region_is_harvested_within_seconds(hosts, vms_per_host, bound_s):
    region = _region(hosts, vms_per_host)
    started = time.perf_counter()
    snap = _harvest(region)
    took = time.perf_counter() - started
    assert len(snap.hypervisors) == hosts and len(snap.vms) == len(region.vms) > 19900
    assert took < bound_s, "harvest took %.2f s" % took
