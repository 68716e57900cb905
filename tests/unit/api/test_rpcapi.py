"""EngineAPI casts reach an oslo.messaging RPC server on topic keyvrm-engine (fake:// transport)."""

import threading

from oslo_config import cfg
import oslo_messaging
import pytest

from keyvrm.engine import rpcapi


class _Endpoint:
    target = oslo_messaging.Target(topic=rpcapi.TOPIC, version=rpcapi.VERSION)

    def __init__(self):
        self.received = []
        self.arrived = threading.Event()

    def _got(self, name, **kwargs):
        self.received.append((name, kwargs))
        if len(self.received) == 3:
            self.arrived.set()

    def cycle_now(self, ctxt):
        self._got("cycle_now")

    def run_recommendation(self, ctxt, recommendation_id):
        self._got("run_recommendation", recommendation_id=recommendation_id)

    def cancel_recommendation(self, ctxt, recommendation_id):
        self._got("cancel_recommendation", recommendation_id=recommendation_id)


@pytest.fixture
def transport():
    conf = cfg.ConfigOpts()
    conf([])
    result = oslo_messaging.get_rpc_transport(conf, url="fake:/")
    yield result
    result.cleanup()


def test_each_cast_reaches_the_engine_endpoint(transport):
    endpoint = _Endpoint()
    server = oslo_messaging.get_rpc_server(transport, oslo_messaging.Target(topic=rpcapi.TOPIC, server="e1"),
                                           [endpoint], executor="threading")
    server.start()
    try:
        api = rpcapi.EngineAPI(transport)
        api.cycle_now({"user_name": "ada"})
        api.run_recommendation({}, "rec-1")
        api.cancel_recommendation({}, "rec-2")
        assert endpoint.arrived.wait(10)
    finally:
        server.stop()
        server.wait()
    assert sorted(endpoint.received) == [("cancel_recommendation", {"recommendation_id": "rec-2"}),
                                         ("cycle_now", {}),
                                         ("run_recommendation", {"recommendation_id": "rec-1"})]
