"""Server side of the engine's RPC API: casts that wake the engine early.

The database is the source of truth (the API records every request before it casts),
so each endpoint only starts the flow that acts on what is recorded; a lost cast costs
at most one period. Topic ``keyvrm-engine`` (``[engine] rpc_topic``), version 1.0.
"""

from __future__ import annotations

import logging

import oslo_messaging

from keyvrm.db import api as db_api
from keyvrm import exception

LOG = logging.getLogger(__name__)
EXECUTOR = "executor"


class EngineManager:
    """RPC endpoints of one engine."""

    target = oslo_messaging.Target(version="1.0")

    def __init__(self, engine):
        self._engine = engine

    def cycle_now(self, ctxt):
        """Start a MasterFlow now (the API recorded a ``requested`` cycle row for it to claim)."""
        self._engine.run_cycle_now()

    def run_recommendation(self, ctxt, recommendation_id):
        """Start the ExecutorFlow of a queued (``created``) recommendation."""
        self._executor_flow(recommendation_id, "run")

    def cancel_recommendation(self, ctxt, recommendation_id):
        """Settle a cancelled recommendation through its ExecutorFlow; a running one honours the cancel itself."""
        self._executor_flow(recommendation_id, "cancel")

    def _executor_flow(self, recommendation_id, why):
        db = self._engine.dispatcher.resources.db
        try:
            status = db_api.get_recommendation(db, recommendation_id)["status"]
        except exception.NotFound:
            LOG.warning("%s request for unknown recommendation %s ignored", why, recommendation_id)
            return
        if status == "running":
            LOG.info("%s request for recommendation %s: already running, its flow acts on it",
                     why, recommendation_id)
            return
        if why == "run" and status != "created":
            LOG.info("run request for recommendation %s ignored: it is %s", recommendation_id, status)
            return
        self._engine.dispatcher.dispatch(EXECUTOR, {"recommendation_id": recommendation_id})


def register_global_only_opts(conf):
    """Register oslo.messaging's tracing and metrics options on ``conf``.

    oslo.messaging registers them only on the global ``cfg.CONF`` but reads them from the
    transport's config, so RPC on a private ``ConfigOpts`` fails without this.
    """
    from oslo_messaging._metrics import client as metrics
    from oslo_messaging._tracing import client as tracing
    conf.register_opts(metrics.oslo_messaging_metrics, group="oslo_messaging_metrics")
    conf.register_opts(tracing.oslo_messaging_tracing, group="oslo_messaging_tracing")


def rpc_server(conf, engine, transport=None):
    """The engine's oslo.messaging RPC server (threading executor) on ``[engine] rpc_topic``."""
    transport = transport or oslo_messaging.get_rpc_transport(conf)
    register_global_only_opts(transport.conf)
    target = oslo_messaging.Target(topic=conf.engine.rpc_topic, server=engine.name, version="1.0")
    return oslo_messaging.get_rpc_server(transport, target, [EngineManager(engine)], executor="threading")
