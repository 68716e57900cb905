"""Hypervisors as operators see them: the newest snapshot's hosts as rows, joined with KeyVRM's own state.

Harvest writes one ``hypervisors`` row per host, and one ``hypervisor_aggregates`` row per
membership, when it stores a snapshot that has hosts (``replace_hypervisors``). The API
lists, filters, pages and judges hosts from these rows in SQL; nothing here decodes a
stored snapshot.
"""

import collections
import dataclasses
import datetime
import functools
from typing import Optional

import sqlalchemy as sa

from keyvrm.db import bulk
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import states

H = models.Hypervisor
HA = models.HypervisorAggregate
S = models.HypervisorState

# What a listed host shows of its row (null for a host only KeyVRM holds) and of KeyVRM's state.
_SEEN = (H.snapshot_id, H.taken_at, H.availability_zone, H.aggregates, H.service_state, H.service_status,
         H.service_forced_down, H.service_disabled_reason)
_HELD = (S.state, S.state_since, S.reason, S.event_id, S.fenced_at, S.fencing)


def _stored_time(posix_s) -> Optional[datetime.datetime]:
    return None if posix_s is None else models.as_stored_time(posix_s)


def _host_row(hyper, snapshot_id, taken_at, vm_count) -> dict:
    service, metrics = hyper.service, hyper.metrics
    return dict(
        name=hyper.name, snapshot_id=snapshot_id, taken_at=taken_at, availability_zone=hyper.availability_zone,
        aggregates=list(hyper.aggregates),
        service_state=service.state if service else None, service_status=service.status if service else None,
        service_forced_down=service.forced_down if service else None,
        service_disabled_reason=service.disabled_reason if service else None,
        service_updated_at=_stored_time(service.updated_at) if service else None,
        cpu_pct=metrics.cpu_pct if metrics else None, ram_pct=metrics.ram_pct if metrics else None,
        net_pct=metrics.net_pct if metrics else None, hugepages_pct=metrics.hugepages_pct if metrics else None,
        has_hugepages=bool(hyper.hugepages), vm_count=vm_count, heartbeat_at=_stored_time(hyper.heartbeat_at))


def _memberships(hosts, aggregates) -> list:
    """One row per (host, aggregate) the host lists, at the host's position in that aggregate's host list.

    A host the aggregate's own list lacks (the aggregates read failed) comes after the
    listed ones.
    """
    order = {a.name: {h: i for i, h in enumerate(a.hosts)} for a in aggregates}
    rows = {}
    for hyper in hosts:
        for aggregate in hyper.aggregates:
            positions = order.get(aggregate, {})
            rows.setdefault((hyper.name, aggregate), positions.get(hyper.name, len(positions)))
    return [dict(host=host, aggregate=aggregate, position=position)
            for (host, aggregate), position in rows.items()]


def replace_hypervisors(db, snapshot_id, snapshot) -> int:
    """Make the hosts of ``snapshot`` (stored as ``snapshot_id``) the current hypervisors; rows written.

    A snapshot without hosts (Nova did not answer) leaves the current rows: the API shows
    the newest snapshot that has hosts. Rows of a newer snapshot are never replaced by an
    older one's (0 written). Every row is replaced in one transaction, in bulk (two
    DELETEs, then ``keyvrm.db.bulk``: COPY on PostgreSQL); on PostgreSQL the table is
    locked against another writer while readers go on reading the previous rows until
    the commit. A host listed
    twice is written once (its last entry). A host the snapshot sees in no availability
    zone keeps the zone its previous row had (Nova's zone list leaves out a host whose
    compute service is disabled, as fencing leaves it, unless its aggregate names a zone).
    """
    if not snapshot.hypervisors:
        return 0
    hosts = list({h.name: h for h in snapshot.hypervisors}.values())
    vm_counts = collections.Counter(vm.host for vm in snapshot.vms)
    taken_at = models.as_stored_time(snapshot.taken_at)
    rows = [_host_row(h, snapshot_id, taken_at, vm_counts[h.name]) for h in hosts]
    memberships = _memberships(hosts, snapshot.aggregates)
    with db.writer() as session:
        if session.get_bind().dialect.name == "postgresql":
            session.execute(sa.text("LOCK TABLE hypervisors IN EXCLUSIVE MODE"))
        newest = session.execute(sa.select(sa.func.max(H.snapshot_id))).scalar()
        if newest is not None and newest > snapshot_id:
            return 0
        _keep_zones(session, rows)
        session.execute(sa.delete(HA))
        session.execute(sa.delete(H))
        bulk.insert_rows(session, H.__table__, rows)
        bulk.insert_rows(session, HA.__table__, memberships)
    return len(rows)


def _keep_zones(session, rows) -> None:
    """Give each row without an availability zone the zone its host's current row has, if any."""
    unzoned = {row["name"]: row for row in rows if row["availability_zone"] is None}
    if not unzoned:
        return
    for name, zone in session.execute(sa.select(H.name, H.availability_zone).where(H.availability_zone.is_not(None))):
        if name in unzoned:
            unzoned[name]["availability_zone"] = zone


def _current_snapshot(session):
    """(id, taken_at) of the snapshot the rows come from; (None, None) before harvest wrote any."""
    found = session.execute(sa.select(H.snapshot_id, H.taken_at).order_by(H.snapshot_id.desc()).limit(1)).first()
    return (found.snapshot_id, found.taken_at) if found is not None else (None, None)


def _fencing_summary(records):
    """The fencing record as the API shows it: fencer, confirmed, message and times (never a secret)."""
    keep = ("fencer", "confirmed", "message", "started_at", "finished_at")
    return [{k: r.get(k) for k in keep} for r in records or () if isinstance(r, dict)]


def _hypervisor_dict(row, current_snapshot_id):
    """A row of ``_hosts_statement`` as the API shows a hypervisor."""
    state = row.state or "ok"
    service = None
    if row.service_state is not None:
        service = dict(state=row.service_state, status=row.service_status, forced_down=row.service_forced_down,
                       disabled_reason=row.service_disabled_reason)
    return dict(host=row.host, state=state, state_since=row.state_since, reason=row.reason, event_id=row.event_id,
                fenced_at=row.fenced_at, fencing=_fencing_summary(row.fencing),
                availability_zone=row.availability_zone, aggregates=list(row.aggregates or ()), service=service,
                snapshot_id=row.snapshot_id if row.taken_at is not None else current_snapshot_id,
                seen_at=row.taken_at, restorable=state in states.HYPERVISOR_RESTORABLE)


@functools.lru_cache(maxsize=None)
def _hosts_statement(after=False, host=False, state=None, aggregate=False, zone=False, descending=False):
    """The first ``:limit`` hosts by name: hosts with a row, and hosts only KeyVRM holds a state for.

    Filters, each a bound parameter: ``after`` (names after ``:after`` in the order),
    ``host`` (that name only), ``state`` (``"ok"``: KeyVRM's state ``:state`` or none;
    ``"held"``: ``:state``), ``aggregate`` (hosts whose row lists ``:aggregate``), ``zone``
    (hosts whose row is in AZ ``:availability_zone``); ``descending``: names from the last
    down (a page before ``:after``). Each part reads at most ``:limit`` rows in name order
    (an index scan) before the two are merged, so a page costs the same in a region of 500
    hosts as in one of 10,000. Built once per combination of filters: building this union
    takes longer than running it.
    """
    seen = sa.select(H.name.label("host"), *_SEEN, *_HELD).select_from(H).outerjoin(S, S.host == H.name)
    held = sa.select(S.host.label("host"), *(sa.cast(sa.null(), c.type).label(c.key) for c in _SEEN), *_HELD).where(
        ~sa.exists().where(H.name == S.host))
    if after:
        if descending:
            seen, held = seen.where(H.name < sa.bindparam("after")), held.where(S.host < sa.bindparam("after"))
        else:
            seen, held = seen.where(H.name > sa.bindparam("after")), held.where(S.host > sa.bindparam("after"))
    if host:
        seen, held = seen.where(H.name == sa.bindparam("host")), held.where(S.host == sa.bindparam("host"))
    if state is not None:
        in_state = S.state == sa.bindparam("state")
        if state == "ok":
            in_state = sa.or_(S.state.is_(None), in_state)
        seen, held = seen.where(in_state), held.where(in_state)
    if aggregate:
        seen = seen.where(H.name.in_(sa.select(HA.host).where(HA.aggregate == sa.bindparam("aggregate"))))
    if zone:
        seen = seen.where(H.availability_zone == sa.bindparam("availability_zone"))

    def ordered(column):
        return column.desc() if descending else column.asc()

    limit = sa.bindparam("limit", type_=sa.Integer)
    parts = [seen.order_by(ordered(H.name)).limit(limit)]
    if not (aggregate or zone):  # a host only KeyVRM holds is in no aggregate and no AZ
        parts.append(held.order_by(ordered(S.host)).limit(limit))
    hosts = sa.union_all(*(sa.select(part.subquery()) for part in parts)).subquery()
    return sa.select(hosts).order_by(ordered(hosts.c.host)).limit(limit)


def _select_hosts(session, limit, after=None, host=None, state=None, aggregate=None, availability_zone=None,
                  descending=False):
    """Rows of ``_hosts_statement`` for these filter values (None: no such filter)."""
    values = dict(limit=limit, after=after, host=host, state=state, aggregate=aggregate,
                  availability_zone=availability_zone)
    statement = _hosts_statement(after is not None, host is not None,
                                 None if state is None else "ok" if state == "ok" else "held", aggregate is not None,
                                 availability_zone is not None, bool(descending))
    return session.execute(statement, {k: v for k, v in values.items() if v is not None}).all()


def page_hypervisors(db, limit, marker=None, state=None, aggregate=None, availability_zone=None,
                     descending=False) -> list:
    """One page of hosts by name after ``marker``: the newest snapshot's with hosts and every one KeyVRM holds.

    Each: KeyVRM's state with since/why/event and fencing record and, from its row, the
    host's AZ, aggregates and compute service as Nova showed them; a host only KeyVRM
    holds shows the current snapshot's id, no AZ, no aggregates and no service.
    ``state``: KeyVRM's state (``ok`` when it holds none); ``aggregate``: hosts Nova lists
    in it; ``availability_zone``: hosts Nova lists in that AZ. ``marker`` is a host name
    (it need not exist); ``descending``: names from the last down, the page before ``marker``.
    """
    if state is not None and state not in tuple(states.HypervisorState):
        choices = ", ".join(states.HypervisorState)
        raise exception.InvalidField("state", "must be one of %s, got %r" % (choices, state))
    with db.reader() as session:
        rows = _select_hosts(session, limit, after=marker, state=state, aggregate=aggregate,
                             availability_zone=availability_zone, descending=descending)
        current_id = _current_snapshot(session)[0] if any(r.taken_at is None for r in rows) else None
    return [_hypervisor_dict(r, current_id) for r in rows]


def get_hypervisor(db, host) -> dict:
    """One host as ``page_hypervisors`` shows it; ``NotFound`` if neither Nova nor KeyVRM knows it."""
    with db.reader() as session:
        rows = _select_hosts(session, 1, host=host)
        if not rows:
            raise exception.NotFound(f"hypervisor {host} not found")
        row = rows[0]
        current_id = _current_snapshot(session)[0] if row.taken_at is None else None
    return _hypervisor_dict(row, current_id)


@dataclasses.dataclass(frozen=True)
class HostLoad:
    """One host's stored utilisations (%, None where missing), HugePages pools and VM count."""

    host: str
    cpu_pct: Optional[float]
    ram_pct: Optional[float]
    net_pct: Optional[float]
    hugepages_pct: Optional[float]
    has_hugepages: bool
    vm_count: int


@dataclasses.dataclass(frozen=True)
class AggregateHosts:
    """An aggregate's hosts as the newest snapshot with hosts saw them (id and taken_at None before one)."""

    snapshot_id: Optional[int]
    taken_at: Optional[datetime.datetime]
    hosts: tuple


def list_aggregate_hosts(db, aggregate) -> AggregateHosts:
    """The hosts of ``aggregate`` with their load, in the aggregate's host order (then by name)."""
    query = (sa.select(H.name, H.cpu_pct, H.ram_pct, H.net_pct, H.hugepages_pct, H.has_hugepages, H.vm_count)
             .join(HA, HA.host == H.name).where(HA.aggregate == aggregate).order_by(HA.position, H.name))
    with db.reader() as session:
        snapshot_id, taken_at = _current_snapshot(session)
        hosts = tuple(HostLoad(*row) for row in session.execute(query))
    return AggregateHosts(snapshot_id, taken_at, hosts)
