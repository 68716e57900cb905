"""Repositories: every read and write KeyVRM makes to its database, validated, one transaction each.

A bad value raises ``InvalidField`` naming the field before anything is written; each
public function runs in a single transaction, so a failure leaves nothing half-written.
"""

import dataclasses
import datetime
import threading
import uuid

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from keyvrm.db import hypervisors
from keyvrm.db import models
from keyvrm.db import sqlite
from keyvrm import exception
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import slices
from keyvrm.model import snapshot as snapshot_model
from keyvrm.model import states

utcnow = models.utcnow


class _Context:
    """The per-call context object oslo.db's enginefacade attaches its session to."""


class Database:
    """One database (a URL): engines and transactions through oslo.db's enginefacade."""

    def __init__(self, connection_url, clock=None, **engine_options):
        self.url = connection_url
        self.clock = clock
        self._facade = enginefacade.transaction_context()
        self._facade.configure(connection=connection_url, sqlite_fk=True, **engine_options)
        if connection_url.startswith("sqlite"):
            sqlite.begin_immediate(self.engine)
        self._last_now = None
        self._now_lock = threading.Lock()
        if clock is not None:
            sa.event.listen(self.engine, "checkout", self._lend_clock)

    def _lend_clock(self, dbapi_connection, connection_record, connection_proxy):
        connection_record.info[models.CLOCK_INFO_KEY] = self.now

    def now(self):
        """Naive UTC now on this database's clock (the injected one; the wall without one).

        On an injected clock the readings strictly increase (a microsecond apart at least):
        a simulated clock stands still between its steps, and "oldest first" must still
        be the order rows were written in.
        """
        if self.clock is None:
            return utcnow()
        now = models.as_stored_time(self.clock.time())
        with self._now_lock:
            if self._last_now is not None and now <= self._last_now:
                now = self._last_now + datetime.timedelta(microseconds=1)
            self._last_now = now
        return now

    def writer(self):
        """A read-write transaction: ``with db.writer() as session: ...``."""
        return self._facade.writer.using(_Context())

    def reader(self):
        """A read-only transaction."""
        return self._facade.reader.using(_Context())

    @property
    def engine(self):
        return self._facade.writer.get_engine()

    def dispose(self):
        """Close every pooled connection."""
        self.engine.dispose()

    def ping(self):
        """Ask the database for nothing; raises while it cannot be reached."""
        with self.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))


def _check_choice(field, value, choices):
    """Refuse ``value`` unless it is one of ``choices`` (a tuple, or a ``keyvrm.model.states`` enum)."""
    choices = tuple(choices)
    if value not in choices:
        raise exception.InvalidField(field, "must be one of %s, got %r" % (", ".join(choices), value))


# --- business config -------------------------------------------------------------------------

def _app_config_from_row(row):
    values = {f: getattr(row, f) for f in settings.APP_CONFIG_FIELDS}
    values["nova_filters"] = tuple(values["nova_filters"])
    values["ha_fence_interfaces"] = tuple(values["ha_fence_interfaces"])
    return settings.AppConfig(**values)


def _insert_once(session, row):
    """Add ``row`` in a savepoint; a concurrent insert of the same primary key wins, silently."""
    try:
        with session.begin_nested():
            session.add(row)
    except db_exc.DBDuplicateEntry:
        pass


def _app_config_row(session, lock=False):
    """The single ``app_config`` row, inserted with the defaults on first use; row-locked if ``lock``.

    Concurrent first reads race to insert it: the insert runs in a savepoint, and the
    loser of the primary key reads the winner's row.
    """
    row = session.get(models.AppConfig, 1, with_for_update=lock or None)
    if row is None:
        _insert_once(session, models.AppConfig(id=1))
        row = session.get(models.AppConfig, 1, with_for_update=lock or None, populate_existing=True)
    return row


def _json_value(value):
    return list(value) if isinstance(value, tuple) else value


def _audit(session, scope, target, before, after, fields, changed_by, request_id):
    changed = []
    for field in fields:
        old, new = _json_value(getattr(before, field)), _json_value(getattr(after, field))
        if old != new:
            session.add(models.ConfigAudit(scope=scope, target=target, field=field,
                                           old_value=old, new_value=new,
                                           changed_by=changed_by, request_id=request_id))
            changed.append(field)
    return changed


def get_app_config(db):
    """The global business config (the defaults of SPEC section 2 until someone changes it)."""
    with db.writer() as session:
        return _app_config_from_row(_app_config_row(session))


def update_app_config(db, changes, changed_by, request_id=None):
    """Apply ``changes`` to the global config if every one is valid; audit each changed field."""
    if not changed_by:
        raise exception.InvalidField("changed_by", "who makes the change must be known")
    with db.writer() as session:
        row = _app_config_row(session, lock=True)
        before = _app_config_from_row(row)
        after = settings.validate_app_config(before, changes)
        changed = _audit(session, "app", None, before, after, changes.keys(), changed_by,
                         request_id)
        for field in changed:
            setattr(row, field, _json_value(getattr(after, field)))
        if changed:
            row.updated_by = changed_by
        return after


def _aggregate_config_from_row(row):
    return settings.AggregateConfig(
        name=row.name, marker=row.marker, no_op_mode=row.no_op_mode,
        no_op_reason=row.no_op_reason, lb_period=row.lb_period, lb_weights=dict(row.lb_weights),
        lb_overload_threshold=row.lb_overload_threshold,
        lb_target_max_load=row.lb_target_max_load, lb_ceilings=dict(row.lb_ceilings),
        storage_mode=row.storage_mode)


def _aggregate_row(session, name, lock=False):
    query = sa.select(models.AggregateConfig).where(models.AggregateConfig.name == name)
    row = session.execute(query.with_for_update() if lock else query).scalar_one_or_none()
    if row is None:
        raise exception.NotFound(f"aggregate {name!r} is not known to KeyVRM")
    return row


def get_aggregate_config(db, name):
    """The business config of one aggregate (``NotFound`` if KeyVRM never saw it)."""
    with db.reader() as session:
        return _aggregate_config_from_row(_aggregate_row(session, name))


@dataclasses.dataclass(frozen=True)
class AggregateRecord:
    """An aggregate as KeyVRM lists it: its config plus Nova identity and deletion mark."""

    config: settings.AggregateConfig
    nova_id: int
    availability_zone: str
    deleted: bool


def list_aggregates(db, availability_zone=None, include_deleted=False):
    """Aggregates KeyVRM knows, by name; optionally one AZ's, optionally with deleted ones."""
    query = sa.select(models.AggregateConfig).order_by(models.AggregateConfig.name)
    if availability_zone is not None:
        query = query.where(models.AggregateConfig.availability_zone == availability_zone)
    if not include_deleted:
        query = query.where(models.AggregateConfig.deleted.is_(False))
    with db.reader() as session:
        return [AggregateRecord(_aggregate_config_from_row(r), r.nova_id, r.availability_zone,
                                r.deleted)
                for r in session.execute(query).scalars()]


def update_aggregate_config(db, name, changes, changed_by, request_id=None):
    """Apply ``changes`` to one aggregate's config if valid as a whole; audit each change.

    The row is locked while the cross-field rules are checked (``SELECT ... FOR UPDATE``),
    so concurrent changes are judged one after another and each audit's old value is the
    value it replaced. ``lb_weights`` and ``lb_ceilings`` are merged into the stored ones
    (JSON Merge Patch, RFC 7396: keys not given keep their value; a null ceiling is none).
    """
    if not changed_by:
        raise exception.InvalidField("changed_by", "who makes the change must be known")
    with db.writer() as session:
        row = _aggregate_row(session, name, lock=True)
        before = _aggregate_config_from_row(row)
        for field in ("lb_weights", "lb_ceilings"):
            if isinstance(changes.get(field), dict):
                changes = dict(changes, **{field: dict(getattr(before, field), **changes[field])})
        after = settings.validate_aggregate_config(before, changes)
        fields = settings.AGGREGATE_CONFIG_FIELDS
        for field in _audit(session, "aggregate", name, before, after, fields, changed_by,
                            request_id):
            setattr(row, field, getattr(after, field))
        return after


@dataclasses.dataclass(frozen=True)
class AggregateSync:
    """What one sync with Nova changed: names created, marked deleted, and restored."""

    created: tuple
    deleted: tuple
    restored: tuple


def sync_aggregates(db, aggregates, now=None):
    """Make ``aggregate_config`` follow Nova's aggregates (snapshot ``Aggregate`` objects).

    New aggregates start NOOP; ones Nova no longer has are marked deleted (their rows,
    events and audit stay); an aggregate that comes back is un-deleted with its config.
    """
    now = now or db.now()
    seen = {a.name: a for a in aggregates}
    created, deleted, restored = [], [], []
    with db.writer() as session:
        rows = {r.name: r for r in session.execute(sa.select(models.AggregateConfig)).scalars()}
        for name in sorted(seen):
            agg = seen[name]
            row = rows.get(name)
            if row is None:
                session.add(models.AggregateConfig(
                    name=name, nova_id=agg.nova_id, availability_zone=agg.availability_zone,
                    no_op_mode=True, no_op_reason=settings.AggregateConfig(name).no_op_reason))
                created.append(name)
                continue
            row.nova_id, row.availability_zone = agg.nova_id, agg.availability_zone
            if row.deleted:
                row.deleted, row.deleted_at = False, None
                restored.append(name)
        for name, row in sorted(rows.items()):
            if name not in seen and not row.deleted:
                row.deleted, row.deleted_at = True, now
                deleted.append(name)
    return AggregateSync(tuple(created), tuple(deleted), tuple(restored))


def list_config_audit(db, scope=None, target=None, limit=100):
    """The newest audit rows first, optionally for one scope/target."""
    query = sa.select(models.ConfigAudit).order_by(models.ConfigAudit.id.desc()).limit(limit)
    if scope is not None:
        query = query.where(models.ConfigAudit.scope == scope)
    if target is not None:
        query = query.where(models.ConfigAudit.target == target)
    with db.reader() as session:
        return [dict(field=r.field, scope=r.scope, target=r.target, old_value=r.old_value,
                     new_value=r.new_value, changed_by=r.changed_by, changed_at=r.changed_at)
                for r in session.execute(query).scalars()]


# --- snapshots and cycles --------------------------------------------------------------------

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
    _check_choice("scope", scope, SNAPSHOT_SCOPES)
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


def start_cycle(db):
    """Record that a cycle started; returns its id."""
    with db.writer() as session:
        row = models.Cycle(status=states.CycleStatus.RUNNING)
        session.add(row)
        session.flush()
        return row.id


def finish_cycle(db, cycle_id, status, reason_code=None, reason=None, snapshot_id=None):
    """Record how a cycle ended; ``skipped`` and ``failed`` need a reason."""
    _check_choice("status", status, states.CYCLE_FINISHED)
    if status != states.CycleStatus.COMPLETED and not reason:
        raise exception.InvalidField("reason", f"a {status} cycle needs a reason")
    with db.writer() as session:
        row = session.get(models.Cycle, cycle_id, with_for_update=True)
        if row is None:
            raise exception.NotFound(f"cycle {cycle_id} not found")
        states.check_move("cycle.status", row.status, status, f"cycle {cycle_id}")
        row.status, row.reason_code, row.reason = status, reason_code, reason
        row.snapshot_id = snapshot_id if snapshot_id is not None else row.snapshot_id
        row.finished_at = db.now()


# --- events, recommendations, operations -----------------------------------------------------

def create_event(db, aggregate_name, kind, marker, cycle_id=None, snapshot_id=None):
    """Create an event in status ``created``; returns its id."""
    _check_choice("kind", kind, states.EventKind)
    _check_choice("marker", marker, settings.MARKERS[1:])
    event_id = str(uuid.uuid4())
    with db.writer() as session:
        session.add(models.Event(id=event_id, aggregate_name=aggregate_name, kind=kind,
                                 marker=marker, cycle_id=cycle_id, snapshot_id=snapshot_id))
    return event_id


def _check_event_move(status, state):
    """Refuse an unknown status or state, and a ``completed`` status without a state."""
    _check_choice("status", status, states.EventStatus)
    if state is not None:
        _check_choice("state", state, states.EventState)
    if status == states.EventStatus.COMPLETED and state is None:
        raise exception.InvalidField("state", "a completed event needs a state")


def _move_event(db, row, status, state):
    """Move the event ``row`` to ``status`` (and ``state``) if the transition table allows it."""
    states.check_move("event.status", row.status, status, f"event {row.id}")
    row.status = status
    if state is not None:
        row.state = state
    if status == states.EventStatus.COMPLETED:
        row.finished_at = db.now()


def set_event_status(db, event_id, status, state=None):
    """Move an event to ``status`` (and ``state``); a ``completed`` event must have a state."""
    _check_event_move(status, state)
    with db.writer() as session:
        _move_event(db, _row_or_404(session, models.Event, event_id, "event"), status, state)


def _no_target_key(entry):
    return entry["source_host"] or "", entry["vm_id"] or ""


def update_event_reasons(db, event_id, merge, no_target=(), status=None, state=None):
    """Rewrite an event's reasons, add its "no target" entries and move it, in one row-locked transaction.

    ``merge(stored reasons)`` returns the new (reason_code, reasons), or None to leave both
    as they are. ``no_target`` entries (``keyvrm.flows.events.no_target_entry``) are kept one
    per (source_host, vm_id), a later one replacing the earlier, ordered by source_host then
    vm_id. With ``status`` (and ``state``, which ``completed`` needs) the event moves to it.
    """
    if status is not None:
        _check_event_move(status, state)
    with db.writer() as session:
        row = _row_or_404(session, models.Event, event_id, "event", lock=True)
        merged = merge(row.reasons)
        if merged is not None:
            row.reason_code, row.reasons = merged
        if status is not None:
            _move_event(db, row, status, state)
        if no_target:
            kept = {_no_target_key(e): e for e in row.no_target or ()}
            kept.update((_no_target_key(e), dict(e)) for e in no_target)
            row.no_target = [kept[key] for key in sorted(kept)]


def settle_event(db, event_id, decide):
    """Complete an event whose recommendations all ended, in one row-locked transaction; its final state.

    ``decide(stored reasons, statuses of its recommendations)`` returns None while one is
    still open (nothing changes), else (state, reason_code, reasons): the event is then
    completed with them. An event already completed is left as it is (its state is
    returned), so of two settles that race only the first writes.
    """
    with db.writer() as session:
        row = _row_or_404(session, models.Event, event_id, "event", lock=True)
        if row.status == states.EventStatus.COMPLETED:
            return row.state
        statuses = list(session.execute(sa.select(models.Recommendation.status).where(
            models.Recommendation.event_id == event_id)).scalars())
        decided = decide(row.reasons, statuses)
        if decided is None:
            return None
        state, row.reason_code, row.reasons = decided
        _check_event_move(states.EventStatus.COMPLETED, state)
        _move_event(db, row, states.EventStatus.COMPLETED, state)
        return state


def _event_dict(row):
    """An event's columns as lists show it: without the per-host ``no_target`` entries."""
    values = _columns(row, models.Event)
    del values["no_target"]
    return values


def create_recommendation(db, event_id, action, vm_id, source_host, target_host, auto_run,
                          ha_round=None, load_calculation=None, reason=None):
    """Create a recommendation, ``created`` when it runs by itself, else ``manual_action``."""
    _check_choice("action", action, states.RecommendationAction)
    if action == "evacuate" and ha_round not in (1, 2):
        raise exception.InvalidField("ha_round", "an evacuation belongs to HA round 1 or 2")
    rec_id = str(uuid.uuid4())
    with db.writer() as session:
        if session.get(models.Event, event_id) is None:
            raise exception.InvalidField("event_id", f"event {event_id} not found")
        session.add(models.Recommendation(
            id=rec_id, event_id=event_id, action=action, vm_id=vm_id, source_host=source_host,
            target_host=target_host, ha_round=ha_round,
            status=states.RecommendationStatus.CREATED if auto_run else states.RecommendationStatus.MANUAL_ACTION,
            load_calculation=load_calculation, reason=reason))
    return rec_id


def set_recommendation_status(db, rec_id, status, reason=None):
    """Move a recommendation along its life (``InvalidTransition``, a ``Conflict``, for a move the table forbids).

    The row is locked while the move is checked: an operator's cancel that committed first
    makes the executor's ``running`` a ``Conflict`` (the cancel wins), never overwritten.
    """
    _check_choice("status", status, states.RecommendationStatus)
    with db.writer() as session:
        row = session.get(models.Recommendation, rec_id, with_for_update=True)
        if row is None:
            raise exception.NotFound(f"recommendation {rec_id} not found")
        states.check_move("recommendation.status", row.status, status, f"recommendation {rec_id}")
        row.status = status
        if reason is not None:
            row.reason = reason
        if status == states.RecommendationStatus.RUNNING:
            row.started_at = db.now()
        if status in states.RECOMMENDATION_FINAL:
            row.finished_at = db.now()


def _recommendation_dict(row):
    return {c.name: getattr(row, c.name) for c in models.Recommendation.__table__.columns}


def get_recommendation(db, rec_id):
    """One recommendation as a dict of its columns (``NotFound`` if there is none)."""
    with db.reader() as session:
        row = session.get(models.Recommendation, rec_id)
        if row is None:
            raise exception.NotFound(f"recommendation {rec_id} not found")
        return _recommendation_dict(row)


def list_recommendations(db, event_id=None, status=None, created_before=None):
    """Recommendations as dicts, oldest first, optionally of one event, one status, created before a time."""
    query = sa.select(models.Recommendation).order_by(models.Recommendation.created_at,
                                                      models.Recommendation.id)
    if event_id is not None:
        query = query.where(models.Recommendation.event_id == event_id)
    if status is not None:
        _check_choice("status", status, states.RecommendationStatus)
        query = query.where(models.Recommendation.status == status)
    if created_before is not None:
        query = query.where(models.Recommendation.created_at <= created_before)
    with db.reader() as session:
        return [_recommendation_dict(r) for r in session.execute(query).scalars()]


def waiting_events_without_open_work(db, limit):
    """Ids of events waiting for an operator (``manual_action``) whose recommendations all ended, oldest first."""
    rec = models.Recommendation
    open_work = sa.select(rec.id).where(rec.event_id == models.Event.id,
                                        rec.status.not_in(states.RECOMMENDATION_FINAL)).exists()
    waiting = models.Event.status == states.EventStatus.MANUAL_ACTION
    query = sa.select(models.Event.id).where(waiting, ~open_work).order_by(
        models.Event.created_at, models.Event.id).limit(limit)
    with db.reader() as session:
        return list(session.execute(query).scalars())


def busy_set(db):
    """Hosts and VMs that an unfinished recommendation touches (SPEC section 3, step 3)."""
    query = sa.select(models.Recommendation.vm_id, models.Recommendation.source_host,
                      models.Recommendation.target_host).where(
        models.Recommendation.status.not_in(states.RECOMMENDATION_FINAL))
    hosts, vms = set(), set()
    with db.reader() as session:
        for vm_id, source, target in session.execute(query):
            vms.add(vm_id)
            hosts.add(source)
            if target:
                hosts.add(target)
    return snapshot_model.BusySet(hosts=frozenset(hosts), vms=frozenset(vms))


def add_operation(db, rec_id, kind, attempt, message=None, error=None, duration_s=None):
    """Append one line to a recommendation's journal; the recommendation's ``attempts`` follows it.

    ``attempts`` is the highest attempt the journal names, raised in the same transaction
    by a conditional UPDATE (never lowered, whatever the order concurrent lines commit in).
    """
    _check_choice("kind", kind, states.OperationKind)
    with db.writer() as session:
        if session.get(models.Recommendation, rec_id) is None:
            raise exception.InvalidField("recommendation_id", f"recommendation {rec_id} not found")
        session.add(models.Operation(recommendation_id=rec_id, kind=kind, attempt=attempt,
                                     message=message, error=error, duration_s=duration_s))
        rec = models.Recommendation
        session.execute(sa.update(rec).where(rec.id == rec_id, rec.attempts < attempt).values(attempts=attempt))


def list_operations(db, rec_id):
    """A recommendation's journal, oldest first."""
    query = sa.select(models.Operation).where(
        models.Operation.recommendation_id == rec_id).order_by(models.Operation.id)
    with db.reader() as session:
        return [dict(kind=r.kind, attempt=r.attempt, message=r.message, error=r.error,
                     duration_s=r.duration_s, created_at=r.created_at)
                for r in session.execute(query).scalars()]


# --- hypervisors and VMs ---------------------------------------------------------------------

def set_hypervisor_state(db, host, state, reason=None, fencing=None, event_id=None):
    """Record KeyVRM's view of ``host``; ``fenced`` needs the fencing record that proves it."""
    _check_choice("state", state, states.HypervisorState)
    if state == states.HypervisorState.FENCED and not fencing:
        raise exception.InvalidField("fencing", "a fenced host needs its fencing record")
    with db.writer() as session:
        row = session.get(models.HypervisorState, host, with_for_update=True)
        states.check_move("hypervisor.state", states.HypervisorState.OK if row is None else row.state, state,
                          f"hypervisor {host}")
        if row is None:
            row = models.HypervisorState(host=host)
            session.add(row)
        if row.state != state:
            row.state_since = db.now()
        row.state, row.reason, row.event_id = state, reason, event_id
        if fencing is not None:
            row.fencing = fencing
            if state == states.HypervisorState.FENCED:
                row.fenced_at = db.now()


def claim_hypervisor(db, host, event_id):
    """Whether the HA event ``event_id`` now owns ``host`` (state ``fencing``), atomically.

    One conditional UPDATE (or the INSERT of the host's first row, which the primary key
    makes exclusive): it succeeds when the host is in no claimed state, or is already this
    event's (a task re-run after a crash). Two HA runs that condemn the same host at once:
    exactly one fences and evacuates it.
    """
    fencing = states.HypervisorState.FENCING
    claimed = models.HypervisorState.state.in_(states.HYPERVISOR_CLAIMED)
    update = (sa.update(models.HypervisorState)
              .where(models.HypervisorState.host == host,
                     models.HypervisorState.state.in_(states.sources("hypervisor.state", fencing)),
                     sa.or_(sa.not_(claimed), models.HypervisorState.event_id == event_id))
              .values(state=fencing, reason=None, event_id=event_id, updated_at=db.now(),
                      state_since=sa.case((models.HypervisorState.state == fencing,
                                           models.HypervisorState.state_since), else_=db.now())))
    try:
        with db.writer() as session:
            if session.execute(update).rowcount == 1:
                return True
            if session.get(models.HypervisorState, host) is not None:
                return False
            session.add(models.HypervisorState(host=host, state=fencing, event_id=event_id,
                                               state_since=db.now()))
    except db_exc.DBDuplicateEntry:
        return False
    return True


def claimed_hypervisors(db, excluding_event=None) -> dict:
    """Host -> KeyVRM state of every host an HA run owns or has handled (``HYPERVISOR_CLAIMED_STATES``).

    Hosts owned by ``excluding_event`` are left out (that run's own claims, after a restart).
    """
    row = models.HypervisorState
    query = sa.select(row.host, row.state).where(row.state.in_(states.HYPERVISOR_CLAIMED))
    if excluding_event is not None:
        query = query.where(sa.or_(row.event_id.is_(None), row.event_id != excluding_event))
    with db.reader() as session:
        return dict(session.execute(query).all())


def get_hypervisor_state(db, host):
    """KeyVRM's view of ``host`` as a dict (state ``ok`` if KeyVRM never recorded one)."""
    with db.reader() as session:
        row = session.get(models.HypervisorState, host)
        if row is None:
            return dict(host=host, state=states.HypervisorState.OK.value, reason=None, fencing=None, fenced_at=None,
                        event_id=None, state_since=None)
        return dict(host=host, state=row.state, reason=row.reason, fencing=row.fencing,
                    fenced_at=row.fenced_at, event_id=row.event_id, state_since=row.state_since)


def lock_vm(db, vm_id, owner):
    """Take the VM's lock for ``owner`` with one conditional UPDATE; ``VMLocked`` if held.

    The row is created unlocked first if KeyVRM never saw the VM; only the UPDATE that
    flips ``locked`` from false to true wins, so two workers can never both hold it.
    """
    _take_lock(db, vm_id, owner)


def _take_lock(db, vm_id, owner, **values):
    """The single conditional UPDATE behind every VM lock; ``values`` are set by it too."""
    if not owner:
        raise exception.InvalidField("owner", "a lock needs an owner")
    try:
        with db.writer() as session:
            session.add(models.VMState(vm_id=vm_id, locked=False))
    except db_exc.DBDuplicateEntry:
        pass
    with db.writer() as session:
        result = session.execute(
            sa.update(models.VMState)
            .where(models.VMState.vm_id == vm_id, models.VMState.locked.is_(False))
            .values(locked=True, lock_owner=owner, locked_at=db.now(), **values)
            .execution_options(synchronize_session=False))
        if result.rowcount == 1:
            return
        holder = session.execute(sa.select(models.VMState.lock_owner).where(
            models.VMState.vm_id == vm_id)).scalar_one_or_none()
    raise exception.VMLocked(vm_id, holder)


def unlock_vm(db, vm_id, owner=None):
    """Release the VM's lock: by its ``owner``, or by anyone when ``owner`` is None (admin).

    Returns True if a lock was released. Who may force an unlock is the API's policy
    (admin only); this function only does it.
    """
    with db.writer() as session:
        query = sa.update(models.VMState).where(models.VMState.vm_id == vm_id,
                                                models.VMState.locked.is_(True))
        if owner is not None:
            query = query.where(models.VMState.lock_owner == owner)
        result = session.execute(query.values(locked=False, lock_owner=None, locked_at=None)
                                 .execution_options(synchronize_session=False))
        return result.rowcount == 1


def get_vm_state(db, vm_id):
    """The VM's desired/observed status and lock, as a dict (``NotFound`` if never seen)."""
    with db.reader() as session:
        row = session.get(models.VMState, vm_id)
        if row is None:
            raise exception.NotFound(f"VM {vm_id} is not known to KeyVRM")
        return {c.name: getattr(row, c.name) for c in models.VMState.__table__.columns}


def add_vm_history(db, vm_id, action, status, started_at, finished_at=None, message=None,
                   recommendation_id=None):
    """Append one action with its outcome to a VM's history; the duration is computed.

    A VM KeyVRM had not recorded yet (e.g. one left on a dead host that was never moved)
    gets its ``vm_state`` row, so ``GET /v1/vms/{id}`` and its history show it.
    """
    duration = (finished_at - started_at).total_seconds() if finished_at else None
    if duration is not None and duration < 0:
        raise exception.InvalidField("finished_at", "an action cannot finish before it starts")
    with db.writer() as session:
        if session.get(models.VMState, vm_id) is None:
            _insert_once(session, models.VMState(vm_id=vm_id, locked=False))
        session.add(models.VMHistory(vm_id=vm_id, action=action, status=status,
                                     message=message, recommendation_id=recommendation_id,
                                     started_at=started_at, finished_at=finished_at,
                                     duration_s=duration))


def list_vm_history(db, vm_id):
    """A VM's history, oldest first."""
    query = sa.select(models.VMHistory).where(models.VMHistory.vm_id == vm_id).order_by(
        models.VMHistory.id)
    with db.reader() as session:
        return [dict(action=r.action, status=r.status, message=r.message,
                     started_at=r.started_at, finished_at=r.finished_at, duration_s=r.duration_s)
                for r in session.execute(query).scalars()]


def begin_vm_transition(db, vm_id, owner, transitional_state, deadline_at, desired_host=None,
                        desired_status=None):
    """Lock the VM for ``owner`` and record what KeyVRM now wants of it, in one transaction.

    The lock is the same single conditional UPDATE as ``lock_vm``; the desired status,
    transitional state and deadline are written by that very statement, so a VM is never
    seen locked without its deadline.
    """
    _take_lock(db, vm_id, owner, transitional_state=transitional_state, deadline_at=deadline_at,
               failure_state=None, desired_host=desired_host, desired_status=desired_status)


def end_vm_transition(db, vm_id, owner=None, failure_state=None, observed_host=None,
                      observed_status=None, observed_at=None):
    """Leave the transitional state and unlock; ``failure_state`` records a failure.

    ``owner`` None ends it whoever holds it (timeout expiry, admin). Returns True if the
    VM was in a transition that this call ended.
    """
    with db.writer() as session:
        query = sa.update(models.VMState).where(models.VMState.vm_id == vm_id,
                                                models.VMState.locked.is_(True))
        if owner is not None:
            query = query.where(models.VMState.lock_owner == owner)
        values = dict(locked=False, lock_owner=None, locked_at=None, transitional_state=None,
                      deadline_at=None, failure_state=failure_state)
        if observed_at is not None:
            values.update(observed_host=observed_host, observed_status=observed_status,
                          observed_at=observed_at)
        result = session.execute(query.values(**values)
                                 .execution_options(synchronize_session=False))
        return result.rowcount == 1


def record_vm_observation(db, vm_id, host, status, observed_at):
    """Store what Nova reports of a VM; a failure it contradicts is corrected (late answer).

    Returns the failure state that was cleared, if any. Older observations than the
    stored one are ignored.
    """
    with db.writer() as session:
        row = session.get(models.VMState, vm_id)
        if row is None:
            row = models.VMState(vm_id=vm_id, locked=False)
            session.add(row)
        if row.observed_at is not None and observed_at < row.observed_at:
            return None
        row.observed_host, row.observed_status, row.observed_at = host, status, observed_at
        cleared = None
        if (row.failure_state and row.desired_host in (None, host)
                and row.desired_status in (None, status)):
            cleared, row.failure_state = row.failure_state, None
        return cleared


def list_overdue_transitions(db, now):
    """VMs whose transitional state outlived its deadline: (vm_id, state, owner, locked_at)."""
    query = sa.select(models.VMState.vm_id, models.VMState.transitional_state,
                      models.VMState.lock_owner, models.VMState.locked_at).where(
        models.VMState.transitional_state.is_not(None), models.VMState.deadline_at < now)
    with db.reader() as session:
        return [tuple(row) for row in session.execute(query)]


# === API reads and requests (owner: API helper) ==============================================
# Paged lists (``limit`` + ``marker``: the id of the last row of the previous page), summaries
# and the requests the API records before it wakes the engine. One transaction each.

def _marker_row(session, model, marker, id_column="id"):
    if marker is None:
        return None
    row = session.get(model, marker)
    if row is None:
        raise exception.InvalidField("marker", f"no {model.__tablename__} row with {id_column} {marker!r}")
    return row


def _keyset(query, column, id_column, marker_row, descending):
    """Order by (column, id) and keep only rows after ``marker_row`` in that order."""
    if descending:
        query = query.order_by(column.desc(), id_column.desc())
    else:
        query = query.order_by(column.asc(), id_column.asc())
    if marker_row is not None:
        value, ident = getattr(marker_row, column.key), getattr(marker_row, id_column.key)
        if descending:
            query = query.where(sa.or_(column < value, sa.and_(column == value, id_column < ident)))
        else:
            query = query.where(sa.or_(column > value, sa.and_(column == value, id_column > ident)))
    return query


def _row_or_404(session, model, ident, what, lock=False):
    """The row ``ident`` of ``model`` (row-locked with ``lock``: checks and writes that follow are atomic)."""
    row = session.get(model, ident, with_for_update=lock or None)
    if row is None:
        raise exception.NotFound(f"{what} {ident} not found")
    return row


def _columns(row, model):
    return {c.name: getattr(row, c.name) for c in model.__table__.columns}


def _last_events(session, names):
    """The newest event of each aggregate in ``names``: {name: event dict}."""
    if not names:
        return {}
    newest = (sa.select(models.Event.aggregate_name, sa.func.max(models.Event.created_at).label("at"))
              .where(models.Event.aggregate_name.in_(names))
              .group_by(models.Event.aggregate_name).subquery())
    query = sa.select(models.Event).join(newest, sa.and_(
        models.Event.aggregate_name == newest.c.aggregate_name,
        models.Event.created_at == newest.c.at)).order_by(models.Event.id)
    return {row.aggregate_name: _event_dict(row) for row in session.execute(query).scalars()}


def _aggregate_dict(row, last_event):
    values = dataclasses.asdict(_aggregate_config_from_row(row))
    values.update(nova_id=row.nova_id, availability_zone=row.availability_zone, deleted=row.deleted,
                  created_at=row.created_at, updated_at=row.updated_at, last_event=last_event)
    return values


def page_aggregates(db, limit, marker=None, availability_zone=None, include_deleted=False):
    """One page of aggregates by name, each with its config and newest event (or None)."""
    with db.reader() as session:
        marker_row = None
        if marker is not None:
            marker_row = session.execute(sa.select(models.AggregateConfig).where(
                models.AggregateConfig.name == marker)).scalar_one_or_none()
            if marker_row is None:
                raise exception.InvalidField("marker", f"no aggregate named {marker!r}")
        query = _keyset(sa.select(models.AggregateConfig), models.AggregateConfig.name,
                        models.AggregateConfig.id, marker_row, descending=False).limit(limit)
        if availability_zone is not None:
            query = query.where(models.AggregateConfig.availability_zone == availability_zone)
        if not include_deleted:
            query = query.where(models.AggregateConfig.deleted.is_(False))
        rows = list(session.execute(query).scalars())
        events = _last_events(session, [r.name for r in rows])
        return [_aggregate_dict(r, events.get(r.name)) for r in rows]


def get_aggregate_summary(db, name):
    """One aggregate with its config, newest event and current (unfinished) event."""
    with db.reader() as session:
        row = _aggregate_row(session, name)
        values = _aggregate_dict(row, _last_events(session, [name]).get(name))
        current = session.execute(sa.select(models.Event).where(
            models.Event.aggregate_name == name, models.Event.status != states.EventStatus.COMPLETED).order_by(
            models.Event.created_at.desc(), models.Event.id.desc()).limit(1)).scalar_one_or_none()
        values["current_event"] = _event_dict(current) if current is not None else None
        return values


def list_availability_zones(db):
    """AZs of the aggregates KeyVRM knows (not deleted), with how many aggregates each has."""
    query = (sa.select(models.AggregateConfig.availability_zone, sa.func.count())
             .where(models.AggregateConfig.deleted.is_(False))
             .group_by(models.AggregateConfig.availability_zone)
             .order_by(models.AggregateConfig.availability_zone))
    with db.reader() as session:
        return [dict(name=az, aggregate_count=count) for az, count in session.execute(query)]


EVENT_SORT_KEYS = ("created_at", "updated_at", "status", "kind")


def page_events(db, limit, marker=None, aggregate=None, kind=None, status=None, state=None,
                sort_key="created_at", sort_dir="desc"):
    """One page of events, filtered, sorted by ``sort_key`` (then id) in ``sort_dir``."""
    _check_choice("sort_key", sort_key, EVENT_SORT_KEYS)
    _check_choice("sort_dir", sort_dir, ("asc", "desc"))
    filters = []
    for field, value, choices in (("kind", kind, states.EventKind),
                                  ("status", status, states.EventStatus),
                                  ("state", state, states.EventState)):
        if value is not None:
            _check_choice(field, value, choices)
            filters.append(getattr(models.Event, field) == value)
    if aggregate is not None:
        filters.append(models.Event.aggregate_name == aggregate)
    with db.reader() as session:
        marker_row = _marker_row(session, models.Event, marker)
        query = _keyset(sa.select(models.Event).where(*filters), getattr(models.Event, sort_key),
                        models.Event.id, marker_row, sort_dir == "desc").limit(limit)
        return [_event_dict(r) for r in session.execute(query).scalars()]


def get_event_summary(db, event_id):
    """One event with the count of its recommendations by status and its ``no_target`` entries."""
    with db.reader() as session:
        row = _row_or_404(session, models.Event, event_id, "event")
        values = _event_dict(row)
        values["no_target"] = list(row.no_target or ())
        counts = session.execute(sa.select(models.Recommendation.status, sa.func.count()).where(
            models.Recommendation.event_id == event_id).group_by(models.Recommendation.status))
        values["recommendations"] = {status: count for status, count in counts}
        return values


def page_recommendations(db, limit, marker=None, event_id=None, status=None, vm_id=None):
    """One page of recommendations, oldest first, optionally of one event, status or VM."""
    query = sa.select(models.Recommendation)
    if event_id is not None:
        query = query.where(models.Recommendation.event_id == event_id)
    if status is not None:
        _check_choice("status", status, states.RecommendationStatus)
        query = query.where(models.Recommendation.status == status)
    if vm_id is not None:
        query = query.where(models.Recommendation.vm_id == vm_id)
    with db.reader() as session:
        marker_row = _marker_row(session, models.Recommendation, marker)
        query = _keyset(query, models.Recommendation.created_at, models.Recommendation.id,
                        marker_row, descending=False).limit(limit)
        return [_columns(r, models.Recommendation) for r in session.execute(query).scalars()]


def list_recommendation_operations(db, rec_id):
    """A recommendation's journal with row ids, oldest first (``NotFound`` for no such one)."""
    with db.reader() as session:
        if session.get(models.Recommendation, rec_id) is None:
            raise exception.NotFound(f"recommendation {rec_id} not found")
        query = sa.select(models.Operation).where(
            models.Operation.recommendation_id == rec_id).order_by(models.Operation.id)
        return [_columns(r, models.Operation) for r in session.execute(query).scalars()]


def request_recommendation_run(db, rec_id, requested_by):
    """Queue a manual recommendation to run: ``manual_action`` -> ``created`` (``Conflict`` otherwise).

    ``created`` is the state the engine runs by itself, so the request survives an engine
    that is down; the RPC cast only wakes it early.
    """
    with db.writer() as session:
        row = _row_or_404(session, models.Recommendation, rec_id, "recommendation", lock=True)
        if row.status != states.RecommendationStatus.MANUAL_ACTION:
            raise exception.Conflict(f"recommendation {rec_id} is {row.status}; only a manual_action "
                                     "recommendation can be run", code="not_manual")
        row.status = states.RecommendationStatus.CREATED
        session.add(models.Operation(recommendation_id=rec_id, kind="start", attempt=0,
                                     message=f"run requested by {requested_by}"))
        return _columns(row, models.Recommendation)


def request_recommendation_cancel(db, rec_id, requested_by):
    """Cancel a recommendation that has not started; for a running one record the request.

    ``created``/``manual_action`` become ``cancelled`` at once. A ``running`` one keeps
    its status and gets a ``cancel`` journal line "cancel requested by ..." that the
    executor honours before its next step. A final one is a ``Conflict``.
    """
    with db.writer() as session:
        row = _row_or_404(session, models.Recommendation, rec_id, "recommendation", lock=True)
        if row.status in states.RECOMMENDATION_FINAL:
            raise exception.Conflict(f"recommendation {rec_id} is already {row.status}",
                                     code="already_final")
        if row.status == states.RecommendationStatus.RUNNING:
            message = f"cancel requested by {requested_by}"
        else:
            row.status, row.finished_at = states.RecommendationStatus.CANCELLED, db.now()
            row.reason = message = f"cancelled by {requested_by}"
        session.add(models.Operation(recommendation_id=rec_id, kind="cancel",
                                     attempt=row.attempts, message=message))
        return _columns(row, models.Recommendation)


def request_cycle(db, requested_by):
    """Record that an operator asked for a cycle now (a ``requested`` cycle row); its id."""
    with db.writer() as session:
        row = models.Cycle(status=states.CycleStatus.REQUESTED, reason_code="requested",
                           reason=f"cycle requested by {requested_by}")
        session.add(row)
        session.flush()
        return row.id


def claim_requested_cycle(db):
    """Take the oldest ``requested`` cycle for running (-> ``running``); its id, or None.

    One conditional UPDATE, so two engines never claim the same request.
    """
    with db.writer() as session:
        for cycle_id in session.execute(sa.select(models.Cycle.id).where(
                models.Cycle.status == states.CycleStatus.REQUESTED).order_by(models.Cycle.id)).scalars():
            result = session.execute(
                sa.update(models.Cycle).where(models.Cycle.id == cycle_id,
                                              models.Cycle.status == states.CycleStatus.REQUESTED)
                .values(status=states.CycleStatus.RUNNING, started_at=db.now())
                .execution_options(synchronize_session=False))
            if result.rowcount == 1:
                return cycle_id
    return None


def page_cycles(db, limit, marker=None, status=None):
    """One page of cycles, newest first, optionally of one status."""
    query = sa.select(models.Cycle)
    if status is not None:
        _check_choice("status", status, states.CycleStatus)
        query = query.where(models.Cycle.status == status)
    with db.reader() as session:
        marker_row = _marker_row(session, models.Cycle, marker)
        query = _keyset(query, models.Cycle.id, models.Cycle.id, marker_row, descending=True)
        return [_columns(r, models.Cycle) for r in session.execute(query.limit(limit)).scalars()]


def list_events(db, aggregate_name=None, kind=None, cycle_id=None):
    """Events as dicts, oldest first, optionally of one aggregate, kind and/or cycle."""
    query = sa.select(models.Event).order_by(models.Event.created_at, models.Event.id)
    if aggregate_name is not None:
        query = query.where(models.Event.aggregate_name == aggregate_name)
    if kind is not None:
        query = query.where(models.Event.kind == kind)
    if cycle_id is not None:
        query = query.where(models.Event.cycle_id == cycle_id)
    with db.reader() as session:
        return [_event_dict(r) for r in session.execute(query).scalars()]


def last_run_at(db, aggregate_name, kind, skip_reason_codes=()):
    """POSIX time of the aggregate's last ``kind`` run, an event or a no-op outcome (None: never).

    An event is timed by its snapshot (the region's time when the run planned: simulated
    time in the simulator), or by its creation once the snapshot aged out; events whose
    reason code is in ``skip_reason_codes`` (runs that did not happen) do not count; an
    outcome is timed by its ``ran_at``, with the same exclusion. Each is the newest row of
    an index read from its end, so the cost does not grow with the aggregate's history.
    """
    skip = list(skip_reason_codes) or [""]
    event = sa.select(models.Event.snapshot_id, models.Event.created_at).where(
        models.Event.aggregate_name == aggregate_name, models.Event.kind == kind,
        sa.or_(models.Event.reason_code.is_(None), models.Event.reason_code.not_in(skip))).order_by(
        models.Event.created_at.desc()).limit(1)
    outcome = sa.select(models.CycleOutcome.ran_at).where(
        models.CycleOutcome.aggregate_name == aggregate_name, models.CycleOutcome.kind == kind,
        models.CycleOutcome.reason_code.not_in(skip)).order_by(models.CycleOutcome.ran_at.desc()).limit(1)
    with db.reader() as session:
        newest = session.execute(event).one_or_none()
        last = None
        if newest is not None:
            taken_at = None if newest.snapshot_id is None else session.execute(
                sa.select(models.RegionData.taken_at).where(models.RegionData.id == newest.snapshot_id)).scalar()
            last = taken_at or newest.created_at
        last_outcome = session.execute(outcome).scalar()
    times = [t for t in (last, last_outcome) if t is not None]
    if not times:
        return None
    return max(times).replace(tzinfo=datetime.timezone.utc).timestamp()


def get_cycle_summary(db, cycle_id):
    """One cycle with the count of events it created and its aggregates' no-op outcomes."""
    with db.reader() as session:
        row = _row_or_404(session, models.Cycle, cycle_id, "cycle")
        values = _columns(row, models.Cycle)
        values["event_count"] = session.execute(sa.select(sa.func.count()).where(
            models.Event.cycle_id == cycle_id)).scalar_one()
        values["outcomes"] = _cycle_outcomes(session, cycle_id)
        return values


_OUTCOME_FIELDS = ("aggregate_name", "kind", "reason_code", "reasons", "ran_at", "next_run_at")


def _cycle_outcomes(session, cycle_id):
    query = sa.select(models.CycleOutcome).where(models.CycleOutcome.cycle_id == cycle_id).order_by(
        models.CycleOutcome.aggregate_name, models.CycleOutcome.kind)
    return [{f: getattr(r, f) for f in _OUTCOME_FIELDS} for r in session.execute(query).scalars()]


def record_cycle_outcome(db, cycle_id, aggregate_name, kind, reason_code, reasons, ran_at,
                         next_run_at=None):
    """Record that the aggregate's ``kind`` run of the cycle had nothing to do, and why (once).

    ``reasons`` is the run's ``ReasonList.to_json()``, ``reason_code`` its first code.
    """
    _check_choice("kind", kind, states.EventKind)
    with db.writer() as session:
        _insert_once(session, models.CycleOutcome(
            cycle_id=cycle_id, aggregate_name=aggregate_name, kind=kind, reason_code=reason_code,
            reasons=reasons, ran_at=ran_at, next_run_at=next_run_at))


def list_cycle_outcomes(db, cycle_id):
    """The no-op outcomes the cycle recorded so far, by aggregate and kind."""
    with db.reader() as session:
        return _cycle_outcomes(session, cycle_id)


def record_cycle_outcomes(db, cycle_id, outcomes):
    """Record many no-op outcomes of one cycle (dicts of ``CycleOutcome`` columns) in one transaction.

    An outcome the cycle already holds for the same aggregate and kind is left as it is.
    """
    for outcome in outcomes:
        _check_choice("kind", outcome["kind"], states.OutcomeKind)
    if not outcomes:
        return
    with db.writer() as session:
        have = {(o.aggregate_name, o.kind) for o in session.execute(
            sa.select(models.CycleOutcome).where(models.CycleOutcome.cycle_id == cycle_id)).scalars()}
        new = [dict(o, cycle_id=cycle_id) for o in outcomes if (o["aggregate_name"], o["kind"]) not in have]
        if new:
            session.execute(sa.insert(models.CycleOutcome), new)


# How many of the newest finished cycles ``latest_outcome`` looks through for an aggregate
# (a periodic cycle judges every aggregate; fast-path cycles only a few).
_OUTCOME_LOOKBACK = 50


def latest_outcome(db, aggregate_name):
    """An aggregate's own latest outcome: what the newest finished cycle that judged it decided, and why.

    ``{cycle_id, cycle_status, finished_at, outcomes: [...], events: [...]}`` with the
    aggregate's no-op outcomes and the events its runs opened in that cycle; None when
    none of the newest finished cycles judged it. A cycle still running is never used.
    """
    ended = models.Cycle.status.in_((states.CycleStatus.COMPLETED, states.CycleStatus.SKIPPED))
    finished = sa.select(models.Cycle.id).where(ended).order_by(
        models.Cycle.id.desc()).limit(_OUTCOME_LOOKBACK).scalar_subquery()
    with db.reader() as session:
        by_outcome = session.execute(sa.select(sa.func.max(models.CycleOutcome.cycle_id)).where(
            models.CycleOutcome.aggregate_name == aggregate_name,
            models.CycleOutcome.cycle_id.in_(finished))).scalar()
        by_event = session.execute(sa.select(sa.func.max(models.Event.cycle_id)).where(
            models.Event.aggregate_name == aggregate_name, models.Event.cycle_id.in_(finished))).scalar()
        cycle_id = max((c for c in (by_outcome, by_event) if c is not None), default=None)
        if cycle_id is None:
            return None
        cycle = session.get(models.Cycle, cycle_id)
        outcomes = [o for o in _cycle_outcomes(session, cycle_id) if o["aggregate_name"] == aggregate_name]
        events = [_event_dict(row) for row in session.execute(sa.select(models.Event).where(
            models.Event.cycle_id == cycle_id, models.Event.aggregate_name == aggregate_name).order_by(
            models.Event.created_at, models.Event.id)).scalars()]
        return dict(cycle_id=cycle_id, cycle_status=cycle.status, finished_at=cycle.finished_at,
                    outcomes=outcomes, events=events)


def get_cycle_outcome(db, cycle_id, aggregate_name, kind):
    """The no-op outcome the aggregate's ``kind`` run recorded in the cycle (None: it recorded none)."""
    with db.reader() as session:
        row = session.execute(sa.select(models.CycleOutcome).where(
            models.CycleOutcome.cycle_id == cycle_id, models.CycleOutcome.aggregate_name == aggregate_name,
            models.CycleOutcome.kind == kind)).scalar_one_or_none()
        return None if row is None else {f: getattr(row, f) for f in _OUTCOME_FIELDS}


def discard_empty_event(db, event_id):
    """Delete an event its run found nothing to record under (no recommendation, no host claimed)."""
    with db.writer() as session:
        claimed = session.execute(sa.select(sa.func.count()).where(
            models.HypervisorState.event_id == event_id)).scalar_one()
        recs = session.execute(sa.select(sa.func.count()).where(
            models.Recommendation.event_id == event_id)).scalar_one()
        if claimed or recs:
            raise exception.Conflict(f"event {event_id} has work recorded; it is not discarded")
        session.execute(sa.delete(models.Event).where(models.Event.id == event_id))


def _snapshot_summary(row):
    return dict(id=row.id, region=row.region, taken_at=row.taken_at, format_version=row.format_version,
                hypervisor_count=row.hypervisor_count, vm_count=row.vm_count, sources=row.sources,
                size_bytes=row.size_bytes, created_at=row.created_at)


def page_snapshots(db, limit, marker=None):
    """One page of snapshot summaries, newest first (the data itself is not read)."""
    with db.reader() as session:
        marker_row = _marker_row(session, models.RegionData, marker)
        query = _keyset(sa.select(models.RegionData).options(sa.orm.defer(models.RegionData.data)),
                        models.RegionData.id, models.RegionData.id, marker_row, descending=True)
        return [_snapshot_summary(r) for r in session.execute(query.limit(limit)).scalars()]


def get_snapshot_summary(db, snapshot_id):
    """One snapshot's summary (``NotFound`` if it was never stored or has aged out)."""
    with db.reader() as session:
        row = session.get(models.RegionData, snapshot_id, options=[sa.orm.defer(models.RegionData.data)])
        if row is None:
            raise exception.NotFound(f"snapshot {snapshot_id} not found")
        return _snapshot_summary(row)


def force_unlock_vm(db, vm_id, unlocked_by):
    """Admin unlock: end any transition, release the lock and write it to the VM's history.

    Returns True if the VM was locked. ``NotFound`` if KeyVRM never saw the VM.
    """
    now = db.now()
    with db.writer() as session:
        row = session.get(models.VMState, vm_id, with_for_update=True)
        if row is None:
            raise exception.NotFound(f"VM {vm_id} is not known to KeyVRM")
        was_locked = bool(row.locked)
        session.add(models.VMHistory(
            vm_id=vm_id, action="manual_unlock", status="succeeded" if was_locked else "noop",
            message=f"unlocked by {unlocked_by}" + ("" if was_locked else " (was not locked)"),
            started_at=now, finished_at=now, duration_s=0.0))
        row.locked, row.lock_owner, row.locked_at = False, None, None
        row.transitional_state, row.deadline_at = None, None
        return was_locked


# --- hypervisors returned to service (their reads as operators see them: keyvrm.db.hypervisors) ---

def request_hypervisor_restore(db, host, requested_by, request_id=None):
    """Mark a fenced/maintenance/error host ``restoring`` for the engine to return to service; audited.

    The host's row is read under a row lock (``SELECT ... FOR UPDATE``) and changed with
    its audit row in the same transaction: of concurrent requests exactly one succeeds;
    the others, and a request for a host in any other state, get ``Conflict`` naming the
    state. ``NotFound`` if neither the newest snapshot with hosts (its ``hypervisors`` row)
    nor KeyVRM knows the host.
    """
    with db.writer() as session:
        row = session.execute(sa.select(models.HypervisorState).where(models.HypervisorState.host == host)
                              .with_for_update()).scalar_one_or_none()
        if row is None:
            if session.get(models.Hypervisor, host) is None:
                raise exception.NotFound(f"hypervisor {host} not found")
            raise exception.Conflict(f"hypervisor {host} is ok: KeyVRM has not taken it out of service",
                                     code="hypervisor_not_restorable")
        if row.state not in states.HYPERVISOR_RESTORABLE:
            raise exception.Conflict(
                f"hypervisor {host} is {row.state}: only a {', '.join(states.HYPERVISOR_RESTORABLE)} "
                "host can be returned to service", code="hypervisor_not_restorable")
        session.add(models.ConfigAudit(scope="hypervisor", target=host, field="state",
                                       old_value=row.state, new_value=states.HypervisorState.RESTORING.value,
                                       changed_by=requested_by, request_id=request_id))
        row.state, row.state_since = states.HypervisorState.RESTORING, db.now()
        row.reason = f"return to service requested by {requested_by}"
    return hypervisors.get_hypervisor(db, host)


def list_hypervisors_restoring(db):
    """Hosts an operator asked to return to service that the engine has not returned yet."""
    row = models.HypervisorState
    with db.reader() as session:
        return list(session.execute(sa.select(row.host).where(row.state == states.HypervisorState.RESTORING)
                                    .order_by(row.host)).scalars())


def complete_hypervisor_restore(db, host, message):
    """The host is back in service: state ``ok`` (HA watches it again). False if no longer restoring."""
    row = models.HypervisorState
    now = db.now()
    with db.writer() as session:
        done = session.execute(sa.update(row).where(row.host == host, row.state == states.HypervisorState.RESTORING)
                               .values(state=states.HypervisorState.OK, reason=message, event_id=None, state_since=now,
                                       updated_at=now))
        return done.rowcount == 1


# --- retention ------------------------------------------------------------------------------

def purge_history(db, before):
    """Delete finished history older than ``before`` (naive UTC); rows still needed stay. Counts per table.

    Removed: completed events that ended before ``before`` whose recommendations are all
    final and that no hypervisor state points to (with their recommendations and
    operations), finished cycles no event refers to any more, and finished VM history
    rows. Unfinished events, recommendations and cycles, and anything a host KeyVRM holds
    out of service refers to, are never touched.
    """
    if not isinstance(before, datetime.datetime):
        raise exception.InvalidField("before", "must be a date and time")
    event, rec, cycle, history = models.Event, models.Recommendation, models.Cycle, models.VMHistory
    open_recs = sa.select(rec.event_id).where(rec.status.notin_(models.RECOMMENDATION_FINAL))
    held = sa.select(models.HypervisorState.event_id).where(models.HypervisorState.event_id.is_not(None))
    old_events = sa.select(event.id).where(event.status == "completed", event.finished_at < before,
                                           event.id.notin_(open_recs), event.id.notin_(held))
    with db.writer() as session:
        event_ids = list(session.execute(old_events).scalars())
        rec_ids = sa.select(rec.id).where(rec.event_id.in_(event_ids))
        operations = session.execute(sa.delete(models.Operation).where(
            models.Operation.recommendation_id.in_(rec_ids))).rowcount
        recommendations = session.execute(sa.delete(rec).where(rec.event_id.in_(event_ids))).rowcount
        events = session.execute(sa.delete(event).where(event.id.in_(event_ids))).rowcount
        referenced = sa.select(event.cycle_id).where(event.cycle_id.is_not(None))
        cycles = session.execute(sa.delete(cycle).where(
            cycle.status.in_(("completed", "skipped", "failed")), cycle.started_at < before,
            cycle.id.notin_(referenced))).rowcount
        vm_history = session.execute(sa.delete(history).where(
            history.finished_at.is_not(None), history.started_at < before)).rowcount
    return {"events": events, "recommendations": recommendations, "operations": operations,
            "cycles": cycles, "vm_history": vm_history}


# === The engine's start-up sweep (keyvrm.engine.sweep) ==========================================
# Work still open that no flow may carry on any more; each change is one conditional UPDATE.

def list_open_work(db, before):
    """Cycles running, events open, and hosts in an HA run, all begun before ``before``.

    A dict: ``cycles`` [id], ``events`` [{id, cycle_id, aggregate_name, kind, status}],
    ``hosts`` [{host, state, event_id}].
    """
    with db.reader() as session:
        cycles = session.execute(sa.select(models.Cycle.id).where(
            models.Cycle.status == states.CycleStatus.RUNNING, models.Cycle.started_at < before)
            .order_by(models.Cycle.id)).scalars().all()
        events = [dict(id=e.id, cycle_id=e.cycle_id, aggregate_name=e.aggregate_name, kind=e.kind,
                       status=e.status)
                  for e in session.execute(sa.select(models.Event).where(
                      models.Event.status != states.EventStatus.COMPLETED, models.Event.created_at < before)
                      .order_by(models.Event.created_at)).scalars()]
        hosts = [dict(host=h.host, state=h.state, event_id=h.event_id)
                 for h in session.execute(sa.select(models.HypervisorState).where(
                     models.HypervisorState.state.in_(states.HYPERVISOR_IN_HA_RUN),
                     sa.or_(models.HypervisorState.state_since.is_(None),
                            models.HypervisorState.state_since < before))
                     .order_by(models.HypervisorState.host)).scalars()]
    return dict(cycles=list(cycles), events=events, hosts=hosts)


def fail_lost_cycle(db, cycle_id, reason_code, reason):
    """Mark a cycle nothing runs any more ``failed`` with its reason; False if it had ended meanwhile."""
    with db.writer() as session:
        result = session.execute(
            sa.update(models.Cycle).where(models.Cycle.id == cycle_id,
                                          models.Cycle.status == states.CycleStatus.RUNNING)
            .values(status=states.CycleStatus.FAILED, reason_code=reason_code, reason=reason, finished_at=db.now())
            .execution_options(synchronize_session=False))
        return result.rowcount == 1


def release_lost_hypervisor(db, host, event_id, reason):
    """Give a host an HA run abandoned back to HA (state ``ok``); False if that run's claim had moved on."""
    with db.writer() as session:
        result = session.execute(
            sa.update(models.HypervisorState).where(
                models.HypervisorState.host == host, models.HypervisorState.event_id == event_id,
                models.HypervisorState.state.in_(states.HYPERVISOR_IN_HA_RUN))
            .values(state=states.HypervisorState.OK, reason=reason, event_id=None, state_since=db.now(),
                    updated_at=db.now())
            .execution_options(synchronize_session=False))
        return result.rowcount == 1


def list_locked_vms(db, before):
    """VMs locked before ``before`` as (vm_id, lock_owner), by VM id."""
    with db.reader() as session:
        return [tuple(row) for row in session.execute(
            sa.select(models.VMState.vm_id, models.VMState.lock_owner)
            .where(models.VMState.locked.is_(True), models.VMState.locked_at < before)
            .order_by(models.VMState.vm_id))]


def _latest_finished(db, since, status, actions, *keys):
    """{key: latest finished_at} of recommendations in ``status`` with one of ``actions``.

    The key is the VM id, or the tuple of the VM id and ``keys`` columns.
    """
    rec = models.Recommendation
    columns = (rec.vm_id,) + tuple(getattr(rec, key) for key in keys)
    query = (sa.select(*columns, sa.func.max(rec.finished_at))
             .where(rec.status == status, rec.action.in_(actions), rec.finished_at >= since)
             .group_by(*columns))
    with db.reader() as session:
        rows = session.execute(query).all()
    return {(tuple(row[:-1]) if keys else row[0]): row[-1] for row in rows}


def recent_moves(db, since):
    """VMs KeyVRM moved since ``since`` (a live migration or evacuation that succeeded): {vm_id: finished_at}.

    The latest move of each VM; LB's cool-down keeps them where they are.
    """
    return _latest_finished(db, since, states.RecommendationStatus.SUCCEEDED,
                            (states.RecommendationAction.LIVE_MIGRATE, states.RecommendationAction.EVACUATE))


def recent_failed_migrations(db, since):
    """Live migrations that ended ``failed`` since ``since``: {(vm_id, target_host): latest finished_at}.

    LB does not send a VM to a target its migration to just failed (within the cool-down).
    """
    return _latest_finished(db, since, states.RecommendationStatus.FAILED, (states.RecommendationAction.LIVE_MIGRATE,),
                            "target_host")
