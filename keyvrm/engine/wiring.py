"""The live objects of a production engine, from deployment config: what ``keyvrm-engine`` runs with.

Real drivers only (``[harvest] cloud_driver``, ``[metrics]``/``[heartbeat] driver`` not
``sim``): the simulated region runs in the demo command, which builds its own resources.
"""

from __future__ import annotations

from keyvrm import clock as keyvrm_clock
from keyvrm.db import session as db_session
from keyvrm.fencing import factory as fencing_factory
from keyvrm.flows import resources as flow_resources
from keyvrm.harvest import sources as harvest_sources
from keyvrm import notifications


def resources_factory_from_conf(conf, clock=None):
    """``resources_factory(dispatcher) -> EngineResources`` over the real cloud, TSDB, Sentinel and fencers.

    Drivers and the notifier are built at once, so bad config fails at start, not at the first cycle.
    """
    clock = clock or keyvrm_clock.WallClock()
    db = db_session.database_from_conf(conf)
    sources = harvest_sources.sources_from_conf(conf, clock=clock)
    notifier = notifications.Notifier(conf)
    settings = flow_resources.FlowSettings.from_conf(conf)

    def build(dispatcher):
        return flow_resources.EngineResources(
            db=db, cloud=sources.cloud, clock=clock, dispatcher=dispatcher,
            fencers=lambda app_config: fencing_factory.fencers_from_conf(conf, app_config, sources.cloud),
            metrics=sources.metrics, heartbeat=sources.heartbeat, notifier=notifier, conf=settings,
            harvest_sources=sources)
    return build
