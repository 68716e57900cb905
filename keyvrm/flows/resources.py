"""What flows and tasks act through: the engine's live objects, injected, never persisted.

TaskFlow persists a flow's *store* (JSON-able ids and names) and each task's results;
everything with a connection or a thread (database, drivers, fencers, clock, notifier,
dispatcher) lives here and is handed to tasks through their constructors. After a crash
the engine builds a fresh ``EngineResources`` and the flows resume with it.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Callable, Optional

from keyvrm.executor import inflight
from keyvrm.executor import settings as executor_settings
from keyvrm.fencing import factory
from keyvrm.harvest import assemble
from keyvrm.model import settings
from keyvrm.planning import failover


@dataclasses.dataclass(frozen=True)
class FlowSettings:
    """Deployment values the flows read once at start (from oslo.config), with units."""

    heartbeat_stale_after_s: float = 30.0
    nova_service_down_time_s: float = 60.0  # Nova's service_down_time (``[ha] nova_service_down_time``)
    metrics_window_s: Optional[float] = None
    snapshot_keep_count: int = 100
    snapshot_keep_days: int = 7
    max_condemned_share: float = 0.5
    max_rejected_hosts: int = 100
    failover_max_k: int = 2
    bmc_request_timeout_s: float = 10.0
    executor: executor_settings.ExecutorSettings = dataclasses.field(
        default_factory=executor_settings.ExecutorSettings)

    @classmethod
    def from_conf(cls, conf) -> "FlowSettings":
        """The values of the heartbeat, database, ha, engine, fencing and executor option groups."""
        return cls(heartbeat_stale_after_s=float(conf.heartbeat.stale_after),
                   nova_service_down_time_s=float(conf.ha.nova_service_down_time),
                   snapshot_keep_count=conf.database.snapshot_keep_count,
                   snapshot_keep_days=conf.database.snapshot_keep_days,
                   max_condemned_share=conf.ha.mass_failure_share,
                   max_rejected_hosts=conf.engine.max_rejected_hosts,
                   failover_max_k=conf.ha.failover_max_k,
                   bmc_request_timeout_s=float(conf.fencing.bmc_request_timeout),
                   executor=executor_settings.ExecutorSettings.from_conf(conf))

    def executor_for(self, app_config: settings.AppConfig) -> executor_settings.ExecutorSettings:
        """The executor settings with this cycle's business values (attempts, errors, manual timeout)."""
        return dataclasses.replace(
            self.executor, max_attempts=app_config.executor_max_attempts,
            max_repeated_errors=app_config.executor_max_repeated_errors,
            manual_action_timeout_s=app_config.executor_manual_action_timeout * 60.0)


class Dispatcher:
    """Where MasterFlow hands the flows it starts; returns at once (the engine's job).

    ``stopping`` is set once the engine stops: no flow starts, steps stop waiting for the database.
    """

    def __init__(self):
        self.stopping = threading.Event()

    def dispatch(self, name: str, store: dict) -> None:
        """Start the registered flow ``name`` with ``store``, asynchronously."""
        raise NotImplementedError


@dataclasses.dataclass
class EngineResources:
    """The live objects one engine gives every flow it runs.

    ``fencers`` builds the fencers for the cycle's business config (``AppConfig`` decides
    which are enabled), e.g. ``lambda app: factory.fencers_from_conf(conf, app, cloud)``.
    ``harvest_sources`` defaults to the cloud, metrics and heartbeat drivers given here.
    ``in_flight`` counts the migrations this engine's runs have in flight (``[executor]
    max_concurrent_per_host`` / ``_per_region`` bound it).
    """

    db: Any
    cloud: Any
    clock: Any
    dispatcher: Dispatcher
    fencers: Callable[[settings.AppConfig], factory.Fencers]
    metrics: Any = None
    heartbeat: Any = None
    notifier: Any = None
    conf: FlowSettings = dataclasses.field(default_factory=FlowSettings)
    harvest_sources: Optional[assemble.HarvestSources] = None
    in_flight: inflight.InFlight = dataclasses.field(default_factory=inflight.InFlight)
    failover_cache: failover.AnalysisCache = dataclasses.field(default_factory=failover.AnalysisCache)

    def sources(self) -> assemble.HarvestSources:
        """What a harvest reads."""
        if self.harvest_sources is not None:
            return self.harvest_sources
        return assemble.HarvestSources(cloud=self.cloud, metrics=self.metrics, heartbeat=self.heartbeat)

    def engine_stopping(self) -> bool:
        """Whether the engine stops (or there is no engine): a step then stops waiting for the database."""
        stopping = getattr(self.dispatcher, "stopping", None)
        return stopping is None or stopping.is_set()
