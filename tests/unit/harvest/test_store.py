"""store_and_sync(): snapshots kept compressed with retention; aggregate_config follows Nova."""

import datetime
import zlib

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.harvest import assemble
from keyvrm.harvest.sources import sources_for_sim
from keyvrm.harvest.store import store_and_sync
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import slices
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r

DAY_S = 86400.0


def _region():
    return generator.generate({"hosts": 12, "hosts_per_aggregate": 4}, {"vms_per_host": 3},
                              r.RegionOptions(seed=5))


def _snapshot(region):
    return assemble.harvest(sources_for_sim(simulated.for_region(region)), settings.AppConfig(),
                            now_s=region.now)


def test_a_stored_snapshot_loads_back_and_new_aggregates_start_noop(sqlite_db):
    region = _region()
    snap = _snapshot(region)
    snapshot_id, sync = store_and_sync(sqlite_db, snap, keep_count=5, keep_days=7, now_s=region.now)
    assert db_api.load_snapshot(sqlite_db, snapshot_id) == snap
    assert sync.created == ("agg-001", "agg-002", "agg-003")
    assert all(db_api.get_aggregate_config(sqlite_db, name).no_op_mode for name in sync.created)
    summary = db_api.list_snapshots(sqlite_db)[0]
    assert summary["vms"] == len(region.vms) and 0 < summary["size_bytes"] < 20000


def test_an_aggregate_nova_no_longer_has_is_marked_deleted(sqlite_db):
    region = _region()
    snap = _snapshot(region)
    store_and_sync(sqlite_db, snap, keep_count=5, keep_days=0, now_s=region.now)
    fewer = m.replace(snap, aggregates=snap.aggregates[:2])
    _, sync = store_and_sync(sqlite_db, fewer, keep_count=5, keep_days=0, now_s=region.now + 60)
    assert sync.deleted == ("agg-003",) and sync.created == ()
    names = [a.config.name for a in db_api.list_aggregates(sqlite_db)]
    assert "agg-003" not in names
    assert [a.deleted for a in db_api.list_aggregates(sqlite_db, include_deleted=True)] == [False, False, True]


def test_aggregates_are_not_synced_when_nova_failed(sqlite_db):
    region = _region()
    store_and_sync(sqlite_db, _snapshot(region), keep_count=5, keep_days=0, now_s=region.now)
    faults.nova_api_503(region, {"duration_s": 60})
    failed = _snapshot(region)
    assert not failed.source_ok(m.SOURCE_NOVA) and failed.aggregates == ()
    snapshot_id, sync = store_and_sync(sqlite_db, failed, keep_count=5, keep_days=0, now_s=region.now)
    assert sync == db_api.AggregateSync((), (), ())
    assert len(db_api.list_aggregates(sqlite_db)) == 3
    assert db_api.list_snapshots(sqlite_db)[0]["sources"][m.SOURCE_NOVA]["ok"] is False


def test_retention_keeps_the_newest_count(sqlite_db):
    region = _region()
    snap = _snapshot(region)
    ids = [store_and_sync(sqlite_db, m.replace(snap, taken_at=region.now + i), keep_count=2,
                          keep_days=0, now_s=region.now + i)[0] for i in range(4)]
    assert [s["id"] for s in db_api.list_snapshots(sqlite_db)] == ids[:-3:-1]


def test_an_aggregate_slice_loads_alone_and_aged_out_snapshots_take_their_slices_along(sqlite_db):
    region = _region()
    snap = _snapshot(region)
    ids = [store_and_sync(sqlite_db, m.replace(snap, taken_at=region.now + i), keep_count=2,
                          keep_days=0, now_s=region.now + i)[0] for i in range(3)]
    view = db_api.load_snapshot_slice(sqlite_db, ids[-1], "agg-002")
    assert [h.name for h in view.hypervisors] == ["cmp-00005", "cmp-00006", "cmp-00007", "cmp-00008"]
    assert {v.host for v in view.vms} == {h.name for h in view.hypervisors}
    with sqlite_db.reader() as session:
        kept = sorted({row.snapshot_id for row in session.query(models.SnapshotSlice)})
    assert kept == ids[1:]


def test_a_snapshot_an_earlier_release_stored_whole_still_loads_and_slices(sqlite_db):
    region = _region()
    snap = _snapshot(region)
    with sqlite_db.writer() as session:
        row = models.RegionData(region=snap.region, taken_at=datetime.datetime(2026, 1, 1),
                                format_version=db_api.STORED_WHOLE, hypervisor_count=12, vm_count=36,
                                sources={}, size_bytes=1,
                                data=zlib.compress(codec.dumps(snap).encode("utf-8")))
        session.add(row)
        session.flush()
        snapshot_id = row.id
    assert db_api.load_snapshot(sqlite_db, snapshot_id) == snap
    assert db_api.load_snapshot_slice(sqlite_db, snapshot_id, "agg-003") == \
        slices.Slicer(snap).slice_of("agg-003")
