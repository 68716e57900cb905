"""Host aggregates KeyVRM knows: their business config, their sync with Nova, and their API summaries."""

import dataclasses
from typing import Optional

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import config
from keyvrm.db import events as events_db
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import settings
from keyvrm.model import states


def _aggregate_config_from_row(row):
    return settings.AggregateConfig(
        name=row.name, marker=row.marker, no_op_mode=row.no_op_mode,
        no_op_reason=row.no_op_reason, lb_period=row.lb_period, lb_weights=dict(row.lb_weights),
        lb_overload_threshold=row.lb_overload_threshold,
        lb_target_max_load=row.lb_target_max_load, lb_ceilings=dict(row.lb_ceilings),
        storage_mode=row.storage_mode, ha_failover_reserve=row.ha_failover_reserve, lb_level=row.lb_level,
        lb_persistence=row.lb_persistence, lb_min_gain=row.lb_min_gain, failback=row.failback)


def _aggregate_row(session, name, lock=False):
    query = sa.select(models.AggregateConfig).where(models.AggregateConfig.name == name)
    row = session.execute(query.with_for_update() if lock else query).scalar_one_or_none()
    if row is None:
        raise _unknown_aggregate(session, name)
    return row


def _unknown_aggregate(session, name) -> exception.NotFound:
    """NotFound for ``name``; before KeyVRM's first harvest, how aggregates appear and how to get there now."""
    if session.execute(sa.select(models.RegionData.id).limit(1)).first() is not None:
        return exception.NotFound(f"aggregate {name!r} is not known to KeyVRM")
    enabled = session.execute(sa.select(models.AppConfig.enabled).where(models.AppConfig.id == 1)).scalar()
    enable = "" if enabled else "enable KeyVRM (openstack keyvrm config set --enabled true: a disabled cycle " \
                                "reads nothing), then "
    return exception.NotFound(
        f"aggregate {name!r} is not known to KeyVRM yet: it learns the aggregates from Nova at its first"
        f" cycle, and none has run; {enable}run one now (openstack keyvrm cycle run, POST /v1/cycles) or wait"
        " for the next one (the business config's period)")


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
    failover_short: bool = False  # the last cycle found its failover tolerance below its reserve
    failover_tolerance: Optional[int] = None  # that tolerance, searched up to the reserve (None: not analysed)


def list_aggregates(db, availability_zone=None, include_deleted=False):
    """Aggregates KeyVRM knows, by name; optionally one AZ's, optionally with deleted ones."""
    query = sa.select(models.AggregateConfig).order_by(models.AggregateConfig.name)
    if availability_zone is not None:
        query = query.where(models.AggregateConfig.availability_zone == availability_zone)
    if not include_deleted:
        query = query.where(models.AggregateConfig.deleted.is_(False))
    with db.reader() as session:
        return [AggregateRecord(_aggregate_config_from_row(r), r.nova_id, r.availability_zone,
                                r.deleted, r.failover_short, r.failover_tolerance)
                for r in session.execute(query).scalars()]


def update_aggregate_config(db, name, changes, changed_by, request_id=None):
    """Apply ``changes`` to one aggregate's config if valid as a whole; audit each change.

    The row is locked while the cross-field rules are checked (``SELECT ... FOR UPDATE``),
    so concurrent changes are judged one after another and each audit's old value is the
    value it replaced. ``lb_weights`` and ``lb_ceilings`` are merged into the stored ones
    (JSON Merge Patch, RFC 7396: keys not given keep their value; a null ceiling is none),
    or, when the same changes choose an ``lb_level``, into the ones that level sets.
    """
    if not changed_by:
        raise exception.InvalidField("changed_by", "who makes the change must be known")
    with db.writer() as session:
        row = _aggregate_row(session, name, lock=True)
        before = _aggregate_config_from_row(row)
        for field in ("lb_weights", "lb_ceilings"):
            if isinstance(changes.get(field), dict):
                changes = dict(changes, **{field: dict(_merged_into(before, changes, field), **changes[field])})
        after = settings.validate_aggregate_config(before, changes)
        fields = settings.AGGREGATE_CONFIG_FIELDS
        for field in config.audit(session, "aggregate", name, before, after, fields, changed_by,
                                  request_id):
            setattr(row, field, getattr(after, field))
        return after


def _merged_into(before, changes, field):
    """The object a partial ``field`` of ``changes`` is merged into: the chosen level's, else the stored one."""
    level = changes.get("lb_level")
    preset = settings.LB_LEVELS.get(level, {}) if isinstance(level, int) else {}
    return preset.get(field, getattr(before, field))


def set_failover(db, name, short: bool, tolerance: Optional[int]) -> bool:
    """Record the aggregate's failover tolerance and whether it is below the reserve; True if ``short`` changed.

    The row is locked while it is compared and written: of two cycles (or a re-run) that see
    the same change of ``short``, only one is told it changed, so the alert of a start or a
    clear is sent once.
    """
    with db.writer() as session:
        row = _aggregate_row(session, name, lock=True)
        changed = row.failover_short != short
        row.failover_short, row.failover_tolerance = short, tolerance
        return changed


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
    return {row.aggregate_name: events_db.event_dict(row) for row in session.execute(query).scalars()}


def _host_counts(session, names):
    """How many hosts the newest snapshot with hosts lists in each aggregate of ``names``: {name: count}."""
    if not names:
        return {}
    query = (sa.select(models.HypervisorAggregate.aggregate, sa.func.count())
             .where(models.HypervisorAggregate.aggregate.in_(names))
             .group_by(models.HypervisorAggregate.aggregate))
    return dict(session.execute(query).all())


def _aggregate_dict(row, last_event, host_count):
    config = _aggregate_config_from_row(row)
    values = dataclasses.asdict(config)
    values.update(nova_id=row.nova_id, availability_zone=row.availability_zone, deleted=row.deleted,
                  created_at=row.created_at, updated_at=row.updated_at, last_event=last_event,
                  failover_short=row.failover_short, failover_tolerance=row.failover_tolerance,
                  lb_level_overridden=list(config.lb_level_overridden), host_count=host_count)
    return values


def page_aggregates(db, limit, marker=None, availability_zone=None, include_deleted=False, descending=False):
    """One page of aggregates by name, each with its config, newest event (or None) and number of hosts.

    ``descending``: names from the last down (the page before ``marker``).
    """
    with db.reader() as session:
        marker_row = None
        if marker is not None:
            marker_row = session.execute(sa.select(models.AggregateConfig).where(
                models.AggregateConfig.name == marker)).scalar_one_or_none()
            if marker_row is None:
                raise exception.InvalidField("marker", f"no aggregate named {marker!r}")
        query = common.keyset(sa.select(models.AggregateConfig), models.AggregateConfig.name,
                              models.AggregateConfig.id, marker_row, descending=descending).limit(limit)
        if availability_zone is not None:
            query = query.where(models.AggregateConfig.availability_zone == availability_zone)
        if not include_deleted:
            query = query.where(models.AggregateConfig.deleted.is_(False))
        rows = list(session.execute(query).scalars())
        names = [r.name for r in rows]
        events, counts = _last_events(session, names), _host_counts(session, names)
        return [_aggregate_dict(r, events.get(r.name), counts.get(r.name, 0)) for r in rows]


def get_aggregate_summary(db, name):
    """One aggregate with its config, newest event and current (unfinished) event."""
    with db.reader() as session:
        row = _aggregate_row(session, name)
        values = _aggregate_dict(row, _last_events(session, [name]).get(name),
                                 _host_counts(session, [name]).get(name, 0))
        current = session.execute(sa.select(models.Event).where(
            models.Event.aggregate_name == name, models.Event.status != states.EventStatus.COMPLETED).order_by(
            models.Event.created_at.desc(), models.Event.id.desc()).limit(1)).scalar_one_or_none()
        values["current_event"] = events_db.event_dict(current) if current is not None else None
        return values


def list_availability_zones(db):
    """AZs of the aggregates KeyVRM knows (not deleted), with how many aggregates each has."""
    query = (sa.select(models.AggregateConfig.availability_zone, sa.func.count())
             .where(models.AggregateConfig.deleted.is_(False))
             .group_by(models.AggregateConfig.availability_zone)
             .order_by(models.AggregateConfig.availability_zone))
    with db.reader() as session:
        return [dict(name=az, aggregate_count=count) for az, count in session.execute(query)]
