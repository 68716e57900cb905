"""SQLAlchemy 2 models of every KeyVRM entity (SPEC sections 2, 4, 8).

Times are naive UTC ``DateTime`` columns, as in other OpenStack services. Statuses are
strings (``keyvrm.model.states``) validated by ``keyvrm.db`` (no database ENUM types: they make migrations on
PostgreSQL painful). JSON columns use SQLAlchemy's generic ``JSON`` type.
"""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from keyvrm.model import settings
from keyvrm.model import states

AUDIT_SCOPES = ("app", "aggregate", "hypervisor")


def utcnow():
    """Naive UTC now, the form every DateTime column stores."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


# Where a connection carries the ``now`` of the ``Database`` it belongs to (its pool record's info).
CLOCK_INFO_KEY = "keyvrm_clock"


def as_stored_time(posix_s):
    """Naive UTC datetime of POSIX seconds: a clock reading as a DateTime column stores it."""
    return datetime.datetime.fromtimestamp(posix_s, datetime.timezone.utc).replace(tzinfo=None)


def now_of(context):
    """A row's timestamp default: the time of its database's clock (the wall without one).

    In the simulator that clock is simulated time, so every record KeyVRM writes and every
    comparison with the injected clock (manual timeout, lb_period, deadlines) agree.
    """
    now = context.connection.info.get(CLOCK_INFO_KEY) if context is not None else None
    return now() if now is not None else utcnow()


class Base(orm.DeclarativeBase):
    pass


class AppConfig(Base):
    """The global business config: exactly one row, id 1."""

    __tablename__ = "app_config"
    _d = settings.AppConfig()

    id = sa.Column(sa.Integer, primary_key=True)
    enabled = sa.Column(sa.Boolean, nullable=False, default=_d.enabled)
    period = sa.Column(sa.Integer, nullable=False, default=_d.period)
    nova_filters = sa.Column(sa.JSON, nullable=False, default=lambda: list(settings.AppConfig().nova_filters))
    ha_fence_ceph = sa.Column(sa.Boolean, nullable=False, default=_d.ha_fence_ceph)
    ha_fence_bmc = sa.Column(sa.Boolean, nullable=False, default=_d.ha_fence_bmc)
    ha_fence_nova = sa.Column(sa.Boolean, nullable=False, default=_d.ha_fence_nova)
    ha_fence_interfaces = sa.Column(sa.JSON, nullable=False, default=list)
    ha_power_check_timeout = sa.Column(sa.Integer, nullable=False, default=_d.ha_power_check_timeout)
    ha_vm_reset_state_timeout = sa.Column(sa.Integer, nullable=False,
                                          default=_d.ha_vm_reset_state_timeout)
    ha_no_evacuate_key = sa.Column(sa.String(255), nullable=False, default=_d.ha_no_evacuate_key)
    lb_no_migrate_key = sa.Column(sa.String(255), nullable=False, default=_d.lb_no_migrate_key)
    executor_max_attempts = sa.Column(sa.Integer, nullable=False, default=_d.executor_max_attempts)
    executor_max_repeated_errors = sa.Column(sa.Integer, nullable=False,
                                             default=_d.executor_max_repeated_errors)
    executor_manual_action_timeout = sa.Column(sa.Integer, nullable=False,
                                               default=_d.executor_manual_action_timeout)
    lb_recommendations_auto_run = sa.Column(sa.Boolean, nullable=False,
                                            default=_d.lb_recommendations_auto_run)
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)
    updated_by = sa.Column(sa.String(255))
    del _d


class AggregateConfig(Base):
    """One host aggregate's business config; ``deleted`` once Nova no longer has it."""

    __tablename__ = "aggregate_config"
    __table_args__ = (sa.UniqueConstraint("name", name="uniq_aggregate_config0name"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False)
    nova_id = sa.Column(sa.Integer)
    availability_zone = sa.Column(sa.String(255))
    marker = sa.Column(sa.String(8), nullable=False, default="")
    no_op_mode = sa.Column(sa.Boolean, nullable=False, default=True)
    no_op_reason = sa.Column(sa.Text)
    lb_period = sa.Column(sa.Integer, nullable=False, default=600)
    lb_weights = sa.Column(sa.JSON, nullable=False, default=lambda: dict(settings.DEFAULT_LB_WEIGHTS))
    lb_overload_threshold = sa.Column(sa.Float, nullable=False, default=80.0)
    lb_target_max_load = sa.Column(sa.Float, nullable=False, default=70.0)
    lb_ceilings = sa.Column(sa.JSON, nullable=False, default=lambda: dict(settings.DEFAULT_LB_CEILINGS))
    storage_mode = sa.Column(sa.String(16))  # shared | local; NULL = undeclared (HA does not run)
    ha_failover_reserve = sa.Column(sa.Integer, nullable=False, default=1)
    # the LB dial (settings.LB_LEVELS) whose thresholds were written when it was chosen
    lb_level = sa.Column(sa.Integer, nullable=False, default=settings.DEFAULT_LB_LEVEL)
    lb_persistence = sa.Column(sa.Integer, nullable=False, default=settings.DEFAULT_LB_PERSISTENCE)
    lb_min_gain = sa.Column(sa.Float, nullable=False, default=settings.DEFAULT_LB_MIN_GAIN)
    failback = sa.Column(sa.String(16), nullable=False, default=settings.DEFAULT_FAILBACK)
    # engine-written: whether the last cycle found the tolerance below the reserve (alerts on change)
    failover_short = sa.Column(sa.Boolean, nullable=False, default=False)
    # engine-written: the tolerance the last cycle found, searched up to the reserve (NULL: not analysed)
    failover_tolerance = sa.Column(sa.Integer)
    deleted = sa.Column(sa.Boolean, nullable=False, default=False)
    deleted_at = sa.Column(sa.DateTime)
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)


class ConfigAudit(Base):
    """Who changed which business-config field, when, from what to what."""

    __tablename__ = "config_audit"
    __table_args__ = (sa.Index("config_audit_scope_target_idx", "scope", "target"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    scope = sa.Column(sa.String(16), nullable=False)
    target = sa.Column(sa.String(255))
    field = sa.Column(sa.String(64), nullable=False)
    old_value = sa.Column(sa.JSON)
    new_value = sa.Column(sa.JSON)
    changed_by = sa.Column(sa.String(255), nullable=False)
    changed_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    request_id = sa.Column(sa.String(64))


class RegionData(Base):
    """One stored region snapshot: zlib-compressed versioned JSON plus a summary."""

    __tablename__ = "region_data"
    __table_args__ = (sa.Index("region_data_taken_at_idx", "taken_at"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    region = sa.Column(sa.String(255), nullable=False)
    taken_at = sa.Column(sa.DateTime, nullable=False)
    format_version = sa.Column(sa.Integer, nullable=False)
    hypervisor_count = sa.Column(sa.Integer, nullable=False)
    vm_count = sa.Column(sa.Integer, nullable=False)
    sources = sa.Column(sa.JSON, nullable=False)
    size_bytes = sa.Column(sa.Integer, nullable=False)
    data = sa.Column(sa.LargeBinary, nullable=False)
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    # "region": a whole harvest; "hosts": the HA fast path's few aggregates (keyvrm.harvest.fast)
    scope = sa.Column(sa.String(16), nullable=False, default="region", server_default="region")


class SnapshotSlice(Base):
    """One aggregate's part of a stored snapshot (format 2): what a flow of that aggregate decodes.

    The snapshot's own row (``region_data.data``) holds the rest of the region; the whole
    region is that part with every slice (``keyvrm.model.slices``).
    """

    __tablename__ = "snapshot_slices"

    snapshot_id = sa.Column(sa.Integer, sa.ForeignKey("region_data.id", ondelete="CASCADE"),
                            primary_key=True)
    aggregate = sa.Column(sa.String(255), primary_key=True)
    hypervisor_count = sa.Column(sa.Integer, nullable=False)
    vm_count = sa.Column(sa.Integer, nullable=False)
    data = sa.Column(sa.LargeBinary, nullable=False)


class Hypervisor(Base):
    """One host as the newest snapshot with hosts saw it: what the API lists, filters and pages in SQL.

    Harvest replaces every row when it stores a snapshot that has hosts; a row goes with
    its snapshot when retention removes that (as the snapshot's hosts did before). The
    service columns are null when Nova reported no compute service for the host; a
    metric is null when the TSDB did not return it.
    """

    __tablename__ = "hypervisors"
    __table_args__ = (sa.Index("hypervisors_snapshot_idx", "snapshot_id"),)

    name = sa.Column(sa.String(255), primary_key=True)
    snapshot_id = sa.Column(sa.Integer, sa.ForeignKey("region_data.id", ondelete="CASCADE"), nullable=False)
    taken_at = sa.Column(sa.DateTime, nullable=False)
    availability_zone = sa.Column(sa.String(255))
    aggregates = sa.Column(sa.JSON, nullable=False)  # the host's aggregates as Nova lists them
    service_state = sa.Column(sa.String(16))
    service_status = sa.Column(sa.String(16))
    service_forced_down = sa.Column(sa.Boolean)
    service_disabled_reason = sa.Column(sa.Text)
    service_updated_at = sa.Column(sa.DateTime)
    cpu_pct = sa.Column(sa.Float)
    ram_pct = sa.Column(sa.Float)
    net_pct = sa.Column(sa.Float)
    hugepages_pct = sa.Column(sa.Float)
    has_hugepages = sa.Column(sa.Boolean, nullable=False)
    vm_count = sa.Column(sa.Integer, nullable=False)
    heartbeat_at = sa.Column(sa.DateTime)


class HypervisorAggregate(Base):
    """A host's membership of an aggregate, at its position in the aggregate's host list: the SQL index by aggregate."""

    __tablename__ = "hypervisor_aggregates"
    __table_args__ = (sa.Index("hypervisor_aggregates_aggregate_idx", "aggregate", "position"),)

    host = sa.Column(sa.String(255), sa.ForeignKey("hypervisors.name", ondelete="CASCADE"), primary_key=True)
    aggregate = sa.Column(sa.String(255), primary_key=True)
    position = sa.Column(sa.Integer, nullable=False)


class Cycle(Base):
    """One MasterFlow run: done, skipped (and why) or failed."""

    __tablename__ = "cycles"
    __table_args__ = (sa.Index("cycles_started_at_idx", "started_at"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    status = sa.Column(sa.String(16), nullable=False, default=states.CycleStatus.RUNNING.value)
    reason_code = sa.Column(sa.String(64))
    reason = sa.Column(sa.Text)
    snapshot_id = sa.Column(sa.Integer, sa.ForeignKey("region_data.id", ondelete="SET NULL"))
    started_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    finished_at = sa.Column(sa.DateTime)


class CycleOutcome(Base):
    """What an aggregate's HA or LB run found in a cycle when it had nothing to do (no event).

    ``lb_too_early``, ``no_overload``, ``no_failure``, ``already_handled``, ``ha_acted``: kept on
    the cycle so the aggregate's event history holds only runs that acted or failed. Kind
    ``NOOP``: the aggregate was not processed, and why (``noop``, ``no_marker``, ``disabled``,
    ``storage_undeclared``); so every aggregate has its own outcome or event in every cycle.
    ``reasons`` is a ``keyvrm.model.reason_list.ReasonList`` (its ``to_json``), ranked;
    ``reason_code`` is its first code.
    """

    __tablename__ = "cycle_outcomes"
    __table_args__ = (sa.UniqueConstraint("cycle_id", "aggregate_name", "kind",
                                          name="cycle_outcomes_run_uc"),
                      sa.Index("cycle_outcomes_last_run_idx", "aggregate_name", "kind", "ran_at"))

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    cycle_id = sa.Column(sa.Integer, sa.ForeignKey("cycles.id", ondelete="CASCADE"), nullable=False)
    aggregate_name = sa.Column(sa.String(255), nullable=False)
    kind = sa.Column(sa.String(8), nullable=False)
    reason_code = sa.Column(sa.String(64), nullable=False)
    reasons = sa.Column(sa.JSON, nullable=False)
    ran_at = sa.Column(sa.DateTime, nullable=False)  # the region's time the run judged (its snapshot)
    next_run_at = sa.Column(sa.DateTime)  # LB: when lb_period next allows a run
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)


class Event(Base):
    """One HA or LB run for one aggregate and one snapshot.

    ``reasons`` is a ``keyvrm.model.reason_list.ReasonList`` (its ``to_json``; None until the
    run records one), ranked: ``reason_code`` is its first code.
    """

    __tablename__ = "events"
    __table_args__ = (sa.Index("events_aggregate_created_idx", "aggregate_name", "created_at"),
                      sa.Index("events_cycle_idx", "cycle_id"))

    id = sa.Column(sa.String(36), primary_key=True)
    aggregate_name = sa.Column(sa.String(255), nullable=False)
    kind = sa.Column(sa.String(8), nullable=False)
    marker = sa.Column(sa.String(8), nullable=False)
    status = sa.Column(sa.String(16), nullable=False, default=states.EventStatus.CREATED.value)
    state = sa.Column(sa.String(16))
    reason_code = sa.Column(sa.String(64))
    reasons = sa.Column(sa.JSON)
    # per VM (HA) or overloaded source (LB) without a target: the check that rejected each
    # candidate host, as GET /v1/events/{id} shows it (keyvrm.flows.events.no_target_entry)
    no_target = sa.Column(sa.JSON)
    cycle_id = sa.Column(sa.Integer, sa.ForeignKey("cycles.id", ondelete="SET NULL"))
    snapshot_id = sa.Column(sa.Integer, sa.ForeignKey("region_data.id", ondelete="SET NULL"))
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)
    finished_at = sa.Column(sa.DateTime)


class Recommendation(Base):
    """One action on one VM; LB ones carry their load calculation, HA ones their round."""

    __tablename__ = "recommendations"
    __table_args__ = (sa.Index("recommendations_event_idx", "event_id"),
                      sa.Index("recommendations_status_idx", "status"),
                      sa.Index("recommendations_vm_idx", "vm_id"))

    id = sa.Column(sa.String(36), primary_key=True)
    event_id = sa.Column(sa.String(36), sa.ForeignKey("events.id", ondelete="CASCADE"),
                         nullable=False)
    action = sa.Column(sa.String(16), nullable=False)
    vm_id = sa.Column(sa.String(36), nullable=False)
    source_host = sa.Column(sa.String(255), nullable=False)
    target_host = sa.Column(sa.String(255))
    ha_round = sa.Column(sa.Integer)
    status = sa.Column(sa.String(16), nullable=False)
    load_calculation = sa.Column(sa.JSON)
    reason = sa.Column(sa.Text)
    attempts = sa.Column(sa.Integer, nullable=False, default=0)
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)
    started_at = sa.Column(sa.DateTime)
    finished_at = sa.Column(sa.DateTime)


class Operation(Base):
    """One journal line of a recommendation's execution."""

    __tablename__ = "operations"
    __table_args__ = (sa.Index("operations_recommendation_idx", "recommendation_id"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    recommendation_id = sa.Column(sa.String(36),
                                  sa.ForeignKey("recommendations.id", ondelete="CASCADE"),
                                  nullable=False)
    kind = sa.Column(sa.String(16), nullable=False)
    attempt = sa.Column(sa.Integer, nullable=False, default=0)
    message = sa.Column(sa.Text)
    error = sa.Column(sa.Text)
    duration_s = sa.Column(sa.Float)
    created_at = sa.Column(sa.DateTime, nullable=False, default=now_of)


class HypervisorState(Base):
    """KeyVRM's own view of a hypervisor, with the record of its last fencing."""

    __tablename__ = "hypervisor_state"

    host = sa.Column(sa.String(255), primary_key=True)
    state = sa.Column(sa.String(16), nullable=False, default=states.HypervisorState.OK.value)
    reason = sa.Column(sa.Text)
    fencing = sa.Column(sa.JSON)  # [{fencer, confirmed, message, started_at, finished_at}]
    fenced_at = sa.Column(sa.DateTime)
    event_id = sa.Column(sa.String(36), sa.ForeignKey("events.id", ondelete="SET NULL"))
    state_since = sa.Column(sa.DateTime)  # when ``state`` last changed
    # a restore asked for failback (or the aggregate's is auto): planned once the host is back
    failback_pending = sa.Column(sa.Boolean, nullable=False, default=False, server_default=sa.false())
    # the operator's drain may cold-migrate what a live migration cannot move (its request's allow_cold)
    drain_allow_cold = sa.Column(sa.Boolean, nullable=False, default=False, server_default=sa.false())
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)


class VMState(Base):
    """Desired vs observed status of a VM KeyVRM acts on, its lock and transitional state."""

    __tablename__ = "vm_state"

    vm_id = sa.Column(sa.String(36), primary_key=True)
    desired_host = sa.Column(sa.String(255))
    desired_status = sa.Column(sa.String(32))
    observed_host = sa.Column(sa.String(255))
    observed_status = sa.Column(sa.String(32))
    observed_at = sa.Column(sa.DateTime)
    locked = sa.Column(sa.Boolean, nullable=False, default=False)
    lock_owner = sa.Column(sa.String(255))
    locked_at = sa.Column(sa.DateTime)
    transitional_state = sa.Column(sa.String(32))
    deadline_at = sa.Column(sa.DateTime)
    failure_state = sa.Column(sa.String(32))
    updated_at = sa.Column(sa.DateTime, nullable=False, default=now_of, onupdate=now_of)


class VMHistory(Base):
    """One action on a VM with its outcome and duration."""

    __tablename__ = "vm_history"
    __table_args__ = (sa.Index("vm_history_vm_started_idx", "vm_id", "started_at"),)

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    vm_id = sa.Column(sa.String(36), nullable=False)
    action = sa.Column(sa.String(32), nullable=False)
    status = sa.Column(sa.String(32), nullable=False)
    message = sa.Column(sa.Text)
    recommendation_id = sa.Column(sa.String(36))
    started_at = sa.Column(sa.DateTime, nullable=False, default=now_of)
    finished_at = sa.Column(sa.DateTime)
    duration_s = sa.Column(sa.Float)
