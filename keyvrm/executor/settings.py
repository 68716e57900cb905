"""The values one executor run reads: retries from the business config, waits from oslo.config."""

from __future__ import annotations

import dataclasses
from typing import Optional

from keyvrm.conf import lifecycle as lifecycle_conf
from keyvrm.lifecycle import tracker
from keyvrm.model import settings as model_settings


@dataclasses.dataclass(frozen=True)
class ExecutorSettings:
    """Everything ``run_recommendation`` needs to know, with units in the names."""

    max_attempts: int = 3
    max_repeated_errors: int = 2
    manual_action_timeout_s: float = 30 * 60.0
    poll_interval_s: float = 2.0
    retry_delay_s: float = 10.0
    allow_rebuild_local_disk: bool = False
    tier_wait_s: float = 60.0
    max_concurrent_per_host: int = 10
    max_concurrent_per_region: int = 16
    lifecycle_timeouts_s: dict = dataclasses.field(
        default_factory=lambda: dict(lifecycle_conf.TIMEOUT_DEFAULTS_S))

    @classmethod
    def from_conf(cls, conf, app_config: Optional[model_settings.AppConfig] = None):
        """Build from ``[executor]``/``[lifecycle]`` options and the business config.

        ``app_config`` (from ``db_api.get_app_config``) gives the executor_* business
        values; without it their SPEC defaults apply.
        """
        app = app_config or model_settings.AppConfig()
        return cls(max_attempts=app.executor_max_attempts,
                   max_repeated_errors=app.executor_max_repeated_errors,
                   manual_action_timeout_s=app.executor_manual_action_timeout * 60.0,
                   poll_interval_s=conf.executor.poll_interval,
                   retry_delay_s=conf.executor.retry_delay,
                   allow_rebuild_local_disk=conf.executor.allow_rebuild_local_disk,
                   tier_wait_s=conf.executor.tier_wait,
                   max_concurrent_per_host=conf.executor.max_concurrent_per_host,
                   max_concurrent_per_region=conf.executor.max_concurrent_per_region,
                   lifecycle_timeouts_s=tracker.timeouts_from_conf(conf))
