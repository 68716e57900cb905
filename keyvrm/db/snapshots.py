"""Stored region snapshots: written compressed and sliced per aggregate, aged out, read whole or in part."""

import datetime

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import codec
from keyvrm.model import slices


def _as_datetime(posix_s):
    return datetime.datetime.fromtimestamp(posix_s, datetime.timezone.utc).replace(tzinfo=None)


# How a region_data row holds its snapshot: the whole document (earlier releases), or the
# region's part with one snapshot_slices row per aggregate (keyvrm.model.slices).
STORED_WHOLE = 1


STORED_SLICED = 2


SNAPSHOT_SCOPES = ("region", "hosts")


def store_snapshot(db, snapshot, keep_count, keep_days=0, now=None, slicer=None, scope="region"):
    """Store ``snapshot`` compressed, sliced per aggregate; delete snapshots beyond ``keep_count`` or ``keep_days``.

    ``slicer`` is the snapshot's ``slices.Slicer`` when the caller has built one already;
    ``scope`` says whether it is a whole harvest (``region``) or the fast path's (``hosts``).
    Snapshots that a cycle or event refers to lose that reference (SET NULL) when they
    age out; the events themselves are kept. Returns the new row's id.
    """
    if keep_count < 1:
        raise exception.InvalidField("snapshot_keep_count", "must be >= 1")
    common.check_choice("scope", scope, SNAPSHOT_SCOPES)
    slicer = slicer or slices.Slicer(snapshot)
    blob = codec.pack(slicer.region_part())
    parts = []
    for name in slicer.aggregate_names():
        part = slicer.part_of(name)
        parts.append(dict(aggregate=name, hypervisor_count=len(part.snapshot.hypervisors),
                          vm_count=len(part.snapshot.vms), data=codec.pack(part)))
    now = now or db.now()
    with db.writer() as session:
        row = models.RegionData(
            region=snapshot.region, taken_at=_as_datetime(snapshot.taken_at),
            format_version=STORED_SLICED, hypervisor_count=len(snapshot.hypervisors),
            vm_count=len(snapshot.vms),
            sources={n: {"ok": s.ok, "error": s.error} for n, s in snapshot.sources.items()},
            size_bytes=len(blob) + sum(len(p["data"]) for p in parts), data=blob, scope=scope)
        session.add(row)
        session.flush()
        if parts:
            session.execute(sa.insert(models.SnapshotSlice), [dict(p, snapshot_id=row.id) for p in parts])
        keep_ids = sa.select(models.RegionData.id).order_by(
            models.RegionData.id.desc()).limit(keep_count).scalar_subquery()
        expired = sa.not_(models.RegionData.id.in_(keep_ids))
        if keep_days:
            expired = sa.or_(expired, models.RegionData.created_at
                             < now - datetime.timedelta(days=keep_days))
        expired = sa.and_(expired, models.RegionData.id != row.id)
        old_ids = sa.select(models.RegionData.id).where(expired)
        for table in (models.Cycle, models.Event):
            session.execute(sa.update(table).where(table.snapshot_id.in_(old_ids))
                            .values(snapshot_id=None))
        session.execute(sa.delete(models.SnapshotSlice).where(models.SnapshotSlice.snapshot_id.in_(old_ids)))
        session.execute(sa.delete(models.RegionData).where(expired))
        return row.id


def _stored_row(session, snapshot_id):
    row = session.get(models.RegionData, snapshot_id)
    if row is None:
        raise exception.NotFound(f"snapshot {snapshot_id} not found")
    return row


def load_snapshot(db, snapshot_id):
    """The whole stored snapshot ``snapshot_id`` as a ``RegionSnapshot``."""
    with db.reader() as session:
        return _whole_snapshot(session, _stored_row(session, snapshot_id))


def _whole_snapshot(session, row):
    if row.format_version == STORED_WHOLE:
        return codec.decompress(row.data)
    blobs = session.execute(sa.select(models.SnapshotSlice.aggregate, models.SnapshotSlice.data)
                            .where(models.SnapshotSlice.snapshot_id == row.id)).all()
    parts = {name: codec.unpack(blob, codec.AggregatePart) for name, blob in blobs}
    return slices.merge(codec.unpack(row.data, codec.RegionPart), parts)


def newest_region_snapshot_id(db):
    """The id of the newest snapshot of the whole region that has hosts (None before the first)."""
    query = sa.select(models.RegionData.id).where(
        models.RegionData.hypervisor_count > 0, models.RegionData.scope == "region").order_by(
        models.RegionData.id.desc()).limit(1)
    with db.reader() as session:
        return session.execute(query).scalar()


def load_snapshot_region(db, snapshot_id):
    """What stored snapshot ``snapshot_id`` holds outside its slices: every aggregate with its hosts, AZs, sources."""
    with db.reader() as session:
        row = _stored_row(session, snapshot_id)
        if row.format_version == STORED_SLICED:
            return codec.unpack(row.data, codec.RegionPart).snapshot
        return codec.decompress(row.data)


def load_snapshot_slice(db, snapshot_id, aggregate):
    """The slice of ``aggregate`` in stored snapshot ``snapshot_id``, decoding no other part of it."""
    with db.reader() as session:
        row = session.get(models.RegionData, snapshot_id, options=[sa.orm.defer(models.RegionData.data)])
        if row is None:
            raise exception.NotFound(f"snapshot {snapshot_id} not found")
        if row.format_version == STORED_SLICED:
            blob = session.execute(sa.select(models.SnapshotSlice.data).where(
                models.SnapshotSlice.snapshot_id == snapshot_id,
                models.SnapshotSlice.aggregate == aggregate)).scalar()
            if blob is not None:
                return codec.unpack(blob, codec.AggregatePart).snapshot
    # an earlier release's whole snapshot, or an aggregate this snapshot does not know
    return slices.Slicer(load_snapshot(db, snapshot_id)).slice_of(aggregate)


def list_snapshots(db, limit=50):
    """Summaries of stored snapshots, newest first (no snapshot data)."""
    query = sa.select(models.RegionData).order_by(models.RegionData.id.desc()).limit(limit)
    with db.reader() as session:
        return [dict(id=r.id, region=r.region, taken_at=r.taken_at, hypervisors=r.hypervisor_count,
                     vms=r.vm_count, sources=r.sources, size_bytes=r.size_bytes)
                for r in session.execute(query.options(sa.orm.defer(models.RegionData.data)))
                .scalars()]


def _snapshot_summary(row):
    return dict(id=row.id, region=row.region, taken_at=row.taken_at, format_version=row.format_version,
                hypervisor_count=row.hypervisor_count, vm_count=row.vm_count, sources=row.sources,
                size_bytes=row.size_bytes, created_at=row.created_at)


def page_snapshots(db, limit, marker=None):
    """One page of snapshot summaries, newest first (the data itself is not read)."""
    with db.reader() as session:
        marker_row = common.marker_row(session, models.RegionData, marker)
        query = common.keyset(sa.select(models.RegionData).options(sa.orm.defer(models.RegionData.data)),
                              models.RegionData.id, models.RegionData.id, marker_row, descending=True)
        return [_snapshot_summary(r) for r in session.execute(query.limit(limit)).scalars()]


def get_snapshot_summary(db, snapshot_id):
    """One snapshot's summary (``NotFound`` if it was never stored or has aged out)."""
    with db.reader() as session:
        row = session.get(models.RegionData, snapshot_id, options=[sa.orm.defer(models.RegionData.data)])
        if row is None:
            raise exception.NotFound(f"snapshot {snapshot_id} not found")
        return _snapshot_summary(row)
