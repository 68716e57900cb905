"""The live objects of a production engine, from deployment config: what ``keyvrm-engine`` runs with.

Real drivers only (``[harvest] cloud_driver``, ``[metrics]``/``[heartbeat] driver`` not
``sim``): the simulated region runs in the demo command, which builds its own resources.
"""

from __future__ import annotations

from keyvrm import clock as keyvrm_clock
from keyvrm.db import session as db_session
from keyvrm.executor import settings as executor_settings
from keyvrm.fencing import factory as fencing_factory
from keyvrm.flows import resources as flow_resources
from keyvrm.harvest import sources as harvest_sources
from keyvrm import notifications


def flow_settings_from_conf(conf) -> flow_resources.FlowSettings:
    """The deployment values flows read once, with units."""
    return flow_resources.FlowSettings(
        heartbeat_stale_after_s=float(conf.heartbeat.stale_after),
        metrics_window_s=float(conf.metrics.window),
        snapshot_keep_count=conf.database.snapshot_keep_count,
        snapshot_keep_days=conf.database.snapshot_keep_days,
        executor=executor_settings.ExecutorSettings.from_conf(conf))


def resources_factory_from_conf(conf, clock=None):
    """``resources_factory(dispatcher) -> EngineResources`` over the real cloud, TSDB, Sentinel and fencers.

    Drivers and the notifier are built at once, so bad config fails at start, not at the first cycle.
    """
    clock = clock or keyvrm_clock.WallClock()
    db = db_session.database_from_conf(conf)
    sources = harvest_sources.sources_from_conf(conf, clock=clock)
    notifier = notifications.Notifier(conf)
    settings = flow_settings_from_conf(conf)

    def build(dispatcher):
        return flow_resources.EngineResources(
            db=db, cloud=sources.cloud, clock=clock, dispatcher=dispatcher,
            fencers=lambda app_config: fencing_factory.fencers_from_conf(conf, app_config, sources.cloud),
            metrics=sources.metrics, heartbeat=sources.heartbeat, notifier=notifier, conf=settings)
    return build
