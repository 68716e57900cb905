"""Client side of the engine's RPC API: casts that wake keyvrm-engine early.

The database is the source of truth: every caller records the request there first
(recommendation queued, cycle requested), so a cast that is lost or an engine that is
down loses nothing. Topic ``[engine] rpc_topic`` (default ``keyvrm-engine``), version 1.0.
"""

import oslo_messaging

from keyvrm.engine import manager

TOPIC = "keyvrm-engine"
VERSION = "1.0"


def _context_dict(ctxt):
    return ctxt.to_dict() if hasattr(ctxt, "to_dict") else dict(ctxt or {})


class EngineAPI:
    """Casts to ``keyvrm.engine.manager.EngineManager`` over ``transport``."""

    def __init__(self, transport, topic=TOPIC, retry=1):
        manager.register_global_only_opts(transport.conf)
        target = oslo_messaging.Target(topic=topic, version=VERSION)
        self._client = oslo_messaging.get_rpc_client(transport, target, retry=retry)

    def cycle_now(self, ctxt):
        """Ask the engine to run a cycle now (the request is already a ``requested`` cycle row)."""
        self._client.cast(_context_dict(ctxt), "cycle_now")

    def run_recommendation(self, ctxt, recommendation_id):
        """Ask the engine to run a recommendation now (already queued as ``created``)."""
        self._client.cast(_context_dict(ctxt), "run_recommendation", recommendation_id=recommendation_id)

    def cancel_recommendation(self, ctxt, recommendation_id):
        """Ask the engine to stop a recommendation (the cancel is already journaled)."""
        self._client.cast(_context_dict(ctxt), "cancel_recommendation", recommendation_id=recommendation_id)


def from_conf(conf):
    """An ``EngineAPI`` on ``[DEFAULT] transport_url`` and ``[engine] rpc_topic``."""
    return EngineAPI(oslo_messaging.get_rpc_transport(conf), topic=conf.engine.rpc_topic)
