"""A recommendation's final error reaches a real oslo.messaging listener over RabbitMQ."""

import os
import socket
import uuid

import kombu
from oslo_config import cfg
import oslo_messaging
import pytest

from keyvrm import conf as keyvrm_conf
from keyvrm.executor import runner
from keyvrm import notifications
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import faults
from tests.unit.executor import helpers as h

RABBIT_URL = os.environ.get("KEYVRM_TEST_RABBIT_URL", "rabbit://guest:guest@127.0.0.1:5672/")


def _rabbit_answers():
    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=2).close()
        return True
    except OSError:
        return False


@pytest.fixture
def rabbit_conf():
    if not _rabbit_answers():
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("RabbitMQ is required in CI at 127.0.0.1:5672")
        pytest.skip("no RabbitMQ at 127.0.0.1:5672")
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    return conf


def _delete_queue(name):
    """Remove the test's notification queue from the broker (it would outlive the test)."""
    with kombu.Connection(RABBIT_URL.replace("rabbit://", "amqp://", 1)) as connection:
        connection.default_channel.queue_delete(name)


def test_listener_over_rabbitmq_receives_keyvrm_recommendation_error(sqlite_db, rabbit_conf):
    topic = "keyvrm_test_%s" % uuid.uuid4().hex[:8]
    transport = oslo_messaging.get_notification_transport(rabbit_conf, url=RABBIT_URL)
    endpoint = h.NotificationEndpoint()
    listener = oslo_messaging.get_notification_listener(
        transport, [oslo_messaging.Target(topic=topic)], [endpoint], executor="threading")
    listener.start()
    try:
        notifier = notifications.Notifier(rabbit_conf, transport, driver="messagingv2",
                                          topics=[topic])
        region = h.small_region()
        vm = h.vm_on(region, h.SOURCE)
        faults.nova_api_503(region, {"duration_s": 3600})
        _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
        status = runner.run_recommendation(sqlite_db, SimCloudDriver(region), rec_id,
                                           clock=h.RegionClock(region), settings=h.SETTINGS,
                                           notifier=notifier)
        assert status == "failed"
        assert endpoint.arrived.wait(30), "no notification arrived over RabbitMQ"
    finally:
        listener.stop()
        listener.wait()
        transport.cleanup()
        _delete_queue(topic + ".error")
    [(publisher, event_type, payload)] = endpoint.received
    assert (publisher, event_type) == ("keyvrm", "keyvrm.recommendation.error")
    assert payload["recommendation_id"] == rec_id
    assert payload["error_rule"] == "api_unavailable" and payload["attempts"] == 2
    assert payload["reason"] == "the same error 2 times in a row (executor_max_repeated_errors)"
