"""Bad input from real peers: each failure lands in the snapshot's source status; harvest goes on."""

from keyvrm.db import api as db_api
from keyvrm.drivers.errors import CloudError
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.heartbeat import sentinel
from keyvrm.drivers.heartbeat.sentinel import SentinelHeartbeatDriver
from keyvrm.harvest import assemble
from keyvrm.harvest.store import store_and_sync
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import generator
from keyvrm.simulator import region as r
from tests.functional.harvest.conftest import default_metrics_driver
from tests.unit.harvest.tsdb_stub import StubTSDB


def _region():
    return generator.generate({"hosts": 8, "hosts_per_aggregate": 4}, {"vms_per_host": 4},
                              r.RegionOptions(seed=3))


class _NovaDown(SimCloudDriver):
    """Servers answer 503, Placement does not answer at all."""

    def list_servers(self):
        raise CloudError(503, "Service Unavailable: the server is currently unable to handle the request")

    def list_inventories(self):
        raise DriverUnavailable("Placement at http://placement did not answer: read timed out")


def test_tsdb_500_no_master_and_nova_503_are_each_recorded(shared_sentinel_set, sqlite_db):
    region = _region()
    with StubTSDB(status=500) as tsdb:
        metrics = default_metrics_driver(tsdb.url)
        heartbeat = SentinelHeartbeatDriver(
            sentinel.connect(shared_sentinel_set.sentinels, "not-monitored", socket_timeout_s=0.5),
            "not-monitored")
        sources = assemble.HarvestSources(cloud=_NovaDown(region), metrics=metrics,
                                          heartbeat=heartbeat, region_name="RegionBad")
        snap = assemble.harvest(sources, settings.AppConfig(), now_s=region.now)
    status = snap.sources
    assert status[m.SOURCE_METRICS].error.startswith("host_metrics: DriverUnavailable: TSDB at ")
    assert "answered 500 to [metrics] host_" in status[m.SOURCE_METRICS].error
    assert "no Sentinel knows a master for service 'not-monitored'" in status[m.SOURCE_HEARTBEAT].error
    assert status[m.SOURCE_NOVA].error.startswith("servers: CloudError (HTTP 503): Service Unavailable")
    assert "read timed out" in status[m.SOURCE_PLACEMENT].error
    assert status[m.SOURCE_GLANCE].ok
    assert len(snap.hypervisors) == 8 and snap.vms == ()
    assert all(h.metrics is None and h.heartbeat_at is None for h in snap.hypervisors)
    snapshot_id, sync = store_and_sync(sqlite_db, snap, keep_count=3, keep_days=0, now_s=region.now)
    assert db_api.load_snapshot(sqlite_db, snapshot_id).sources == status
    assert sync.created == ()


def test_an_empty_tsdb_leaves_every_metric_missing_and_the_source_ok(tsdb):
    region = _region()
    sources = assemble.HarvestSources(cloud=SimCloudDriver(region), metrics=default_metrics_driver(tsdb.url))
    snap = assemble.harvest(sources, settings.AppConfig(), now_s=region.now)
    assert snap.source_ok(m.SOURCE_METRICS) and snap.sources[m.SOURCE_METRICS].requests == 9
    assert all(h.metrics is None and h.target_up is None for h in snap.hypervisors)
    assert all(vm.metrics is None for vm in snap.vms) and len(snap.vms) == 32
