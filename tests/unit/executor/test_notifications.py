"""Alerts over oslo.messaging's fake:// transport and to an Alertmanager-compatible endpoint."""

import http.server
import json
import logging
import threading
import time

from oslo_config import cfg
import oslo_messaging
import pytest

from keyvrm import conf as keyvrm_conf
from keyvrm.executor import runner
from keyvrm import notifications
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import faults
from tests.unit.executor import helpers as h

TOPIC = "keyvrm_alerts"


@pytest.fixture
def conf():
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    return conf


@pytest.fixture
def fake_bus(conf):
    """A fake:// transport with a notification listener on TOPIC: (transport, endpoint)."""
    transport = oslo_messaging.get_notification_transport(conf, url="fake://")
    endpoint = h.NotificationEndpoint()
    listener = oslo_messaging.get_notification_listener(
        transport, [oslo_messaging.Target(topic=TOPIC)], [endpoint], executor="threading")
    listener.start()
    yield transport, endpoint
    listener.stop()
    listener.wait()
    transport.cleanup()


class _Alertmanager(http.server.BaseHTTPRequestHandler):
    posts = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).posts.append((self.path, json.loads(body)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def alertmanager():
    _Alertmanager.posts = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Alertmanager)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_port, _Alertmanager.posts
    server.shutdown()
    server.server_close()


def test_a_final_error_reaches_a_listener_as_keyvrm_recommendation_error(sqlite_db, conf, fake_bus):
    transport, endpoint = fake_bus
    notifier = notifications.Notifier(conf, transport, driver="messagingv2", topics=[TOPIC])
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    assert runner.run_recommendation(sqlite_db, SimCloudDriver(region), rec_id,
                                     clock=h.RegionClock(region), settings=h.SETTINGS,
                                     notifier=notifier) == "failed"
    assert endpoint.arrived.wait(10)
    [(publisher, event_type, payload)] = endpoint.received
    assert (publisher, event_type) == ("keyvrm", "keyvrm.recommendation.error")
    assert payload["recommendation_id"] == rec_id and payload["vm_id"] == vm.id
    assert payload["error_rule"] == "migration_timeout" and payload["attempts"] == 1
    assert payload["failed_at"] == region.now


@pytest.fixture
def alerting(conf, fake_bus, alertmanager):
    """A Notifier sending to the fake bus and to the Alertmanager: (notifier, endpoint, posts)."""
    url, posts = alertmanager
    conf.set_override("alertmanager_url", url, group="executor")
    transport, endpoint = fake_bus
    return notifications.Notifier(conf, transport, driver="messagingv2", topics=[TOPIC]), endpoint, posts


def test_alerts_are_posted_to_the_alertmanager_v2_api_when_configured(alerting):
    notifier, endpoint, posts = alerting
    notifier.fencing_error({"host": "cmp-7", "event_id": "e-1", "error": "BMC refused",
                            "reason": "cmp-7 could not be fenced", "failed_at": 1767225600.0})
    assert endpoint.arrived.wait(10)
    assert endpoint.received[0][1] == "keyvrm.fencing.error"
    [(path, [alert])] = posts
    assert path == "/api/v2/alerts"
    assert alert["labels"] == {"alertname": "KeyVRMFencingError", "severity": "critical",
                               "service": "keyvrm", "host": "cmp-7", "event_id": "e-1"}
    assert alert["annotations"] == {"summary": "cmp-7 could not be fenced",
                                    "description": "BMC refused"}
    assert alert["startsAt"] == "2026-01-01T00:00:00+00:00"


def test_ha_warnings_go_out_at_warn_priority_and_errors_as_critical_alerts(alerting):
    notifier, endpoint, posts = alerting
    notifier.ha_warning({"aggregate": "agg-1", "host": "cmp-3", "event_id": "e-2",
                         "reason_code": "host_alive_service_down", "reason": "cmp-3 alive",
                         "failed_at": 1767225600.0})
    notifier.ha_error({"aggregate": "agg-1", "host": None, "event_id": "e-3",
                       "reason_code": "mass_failure_guard", "reason": "3 of 4 condemned",
                       "failed_at": 1767225600.0})
    deadline = time.monotonic() + 10
    while len(endpoint.received) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the listener's threads may deliver the two in either order
    assert sorted((e[1], p) for e, p in zip(endpoint.received, endpoint.priorities)) == [
        ("keyvrm.ha.error", "error"), ("keyvrm.ha.warning", "warn")]
    labels = [alert["labels"] for _, [alert] in posts]
    assert labels == [
        {"alertname": "KeyVRMHAWarning", "severity": "warning", "service": "keyvrm",
         "aggregate": "agg-1", "host": "cmp-3", "event_id": "e-2",
         "reason_code": "host_alive_service_down"},
        {"alertname": "KeyVRMHAError", "severity": "critical", "service": "keyvrm",
         "aggregate": "agg-1", "event_id": "e-3", "reason_code": "mass_failure_guard"}]


def test_an_unreachable_alertmanager_does_not_break_the_caller(conf, fake_bus):
    conf.set_override("alertmanager_url", "http://127.0.0.1:9", group="executor")
    transport, endpoint = fake_bus
    notifier = notifications.Notifier(conf, transport, driver="messagingv2", topics=[TOPIC])
    notifier.recommendation_error({"vm_id": "vm-1", "error": "x"})
    assert endpoint.arrived.wait(10)


def test_alertmanager_endpoint_appends_the_v2_path_once():
    assert notifications.alertmanager_endpoint(None) is None
    assert notifications.alertmanager_endpoint("http://am:9093/") == "http://am:9093/api/v2/alerts"
    assert notifications.alertmanager_endpoint("http://am:9093/api/v2/alerts") == \
        "http://am:9093/api/v2/alerts"


def test_a_repeating_alert_is_logged_once_at_its_level_even_where_alerts_go_nowhere(conf, fake_bus, caplog):
    transport, _ = fake_bus
    notifier = notifications.Notifier(conf, transport, driver="noop")
    warning = {"aggregate": "agg-1", "host": "cmp-3", "reason_code": "host_alive_service_down",
               "reason": "nova-compute of cmp-3 is down but its heartbeat is fresh"}
    with caplog.at_level(logging.WARNING, logger=notifications.__name__):
        for _ in range(5):  # every HA run that finds it sends it again
            notifier.ha_warning(dict(warning))
        notifier.recommendation_error({"recommendation_id": "rec-1", "vm_id": "vm-1", "error_rule": "refused",
                                       "reason": "refused is not worth retrying"})
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.getMessage().startswith("alert ")]
    assert lines == [
        (logging.WARNING, "alert keyvrm.ha.warning: nova-compute of cmp-3 is down but its heartbeat is fresh"
                          " (aggregate agg-1, host cmp-3, reason_code host_alive_service_down)"),
        (logging.ERROR, "alert keyvrm.recommendation.error: refused is not worth retrying"
                        " (vm_id vm-1, recommendation_id rec-1)")]


def test_with_neither_a_notification_driver_nor_an_alertmanager_the_notifier_says_alerts_go_only_to_the_log(
        conf, fake_bus, caplog):
    transport, _ = fake_bus
    with caplog.at_level(logging.WARNING, logger=notifications.__name__):
        notifications.Notifier(conf, transport)  # the settings the README lists: no driver, no Alertmanager
        notifications.Notifier(conf, transport, driver="messagingv2", topics=[TOPIC])
        conf.set_override("alertmanager_url", "http://127.0.0.1:9093", group="executor")
        notifications.Notifier(conf, transport)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "KeyVRM alerts go only to this log: set [oslo_messaging_notifications] driver = "
                          "messagingv2 and/or [executor] alertmanager_url to send them")]


def test_a_failed_recommendation_is_logged_as_an_error_with_the_settings_the_readme_lists(
        sqlite_db, conf, fake_bus, caplog):
    transport, _ = fake_bus
    notifier = notifications.Notifier(conf, transport)
    region = h.small_region()
    vm = h.vm_on(region, h.SOURCE)
    faults.migration_stuck(region, {"count": 1})
    _, rec_id = h.recommendation(sqlite_db, "live_migrate", vm.id)
    with caplog.at_level(logging.WARNING, logger=notifications.__name__):
        assert runner.run_recommendation(sqlite_db, SimCloudDriver(region), rec_id, clock=h.RegionClock(region),
                                         settings=h.SETTINGS, notifier=notifier) == "failed"
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.getMessage().startswith("alert ")] == [
        (logging.ERROR, "alert keyvrm.recommendation.error: migration_timeout is not worth retrying (aggregate "
                        "agg-001, vm_id %s, recommendation_id %s)" % (vm.id, rec_id))]
