"""What flows and tasks act through: the engine's live objects, injected, never persisted.

TaskFlow persists a flow's *store* (JSON-able ids and names) and each task's results;
everything with a connection or a thread (database, drivers, fencers, clock, notifier,
dispatcher) lives here and is handed to tasks through their constructors. After a crash
the engine builds a fresh ``EngineResources`` and the flows resume with it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from keyvrm.fencing import factory
from keyvrm.model import settings


@dataclasses.dataclass(frozen=True)
class FlowSettings:
    """Deployment values the flows read once at start (from oslo.config), with units."""

    heartbeat_stale_after_s: float = 60.0
    metrics_window_s: Optional[float] = None
    snapshot_keep_count: int = 100
    snapshot_keep_days: int = 0
    max_condemned_share: float = 0.5
    allow_local_disk_rebuild: bool = False
    executor: Any = None  # keyvrm.executor.runner.ExecutorSettings
    lifecycle_timeouts: Any = None  # what keyvrm.executor.post.finish_evacuated_host takes


class Dispatcher:
    """Where MasterFlow hands the flows it starts; returns at once (the engine's job)."""

    def dispatch(self, name: str, store: dict) -> None:
        """Start the registered flow ``name`` with ``store``, asynchronously."""
        raise NotImplementedError


@dataclasses.dataclass
class EngineResources:
    """The live objects one engine gives every flow it runs.

    ``fencers`` builds the fencers for the cycle's business config (``AppConfig`` decides
    which are enabled), e.g. ``lambda app: factory.fencers_from_conf(conf, app, cloud)``.
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
