"""Alerts: failed recommendations, fencing failures and HA runs held back, as oslo.messaging notifications.

Event types (priority ``error``, publisher ``keyvrm``):

``keyvrm.recommendation.error`` — a recommendation ended ``failed``. Payload:
    ``recommendation_id``, ``event_id``, ``aggregate`` (str or None), ``action``
    (``evacuate``/``live_migrate``/``stop``), ``vm_id``, ``source_host``, ``target_host``,
    ``attempts`` (int, first one included), ``error`` (the last error text),
    ``error_rule`` (the classification row that named it, see
    ``keyvrm.executor.classify.RULES``), ``error_class`` (``retry``,
    ``retry_after_cleanup`` or ``fatal``), ``reason`` (why the executor stopped) and
    ``failed_at`` (POSIX seconds of the injected clock).

``keyvrm.fencing.error`` — HA could not fence a host. Payload as the fencing step builds
    it; at least ``host``, ``event_id``, ``error`` and ``failed_at``.

``keyvrm.ha.error`` — an HA run held back or left VMs down, and only an operator can end it:
    the mass-failure guard held condemned hosts, no fencer is enabled, a condemned host
    cannot be fenced at all (e.g. no client address for Ceph), or a fenced host kept VMs
    that could not be evacuated. ``keyvrm.ha.warning`` (priority ``warn``) — HA saw a
    host it will not act on: alive but its nova-compute down, up but its heartbeat
    stale, or a source missing. Payload: ``aggregate``, ``event_id``, ``host`` (None for
    the whole aggregate), ``reason_code``, ``reason`` (the event's sentence) and
    ``failed_at``. Each HA run that finds the condition sends it again, as Prometheus
    re-sends a firing alert.

``keyvrm.ha.failover_capacity`` (priority ``warn``) — an HA aggregate's failover tolerance
    fell below its ``ha_failover_reserve`` (``cleared`` false), or is back within it
    (``cleared`` true): sent once when the shortfall starts and once when it clears, never
    every cycle. Payload: ``aggregate``, ``cleared``, ``reason_code``
    (``insufficient_failover_capacity``), ``reason``, ``tolerance``, ``reserve``,
    ``hosts_at_risk`` (names), ``vms_without_target`` and ``failed_at``. Alertmanager gets
    the cleared one with ``endsAt``, which resolves the alert.

The transport and driver come from ``[oslo_messaging_notifications]`` (set
``driver = messagingv2``). If ``[executor] alertmanager_url`` is set, each alert is also
POSTed to its ``/api/v2/alerts`` (Alertmanager's API v2: a list of alerts with
``labels``, ``annotations`` and ``startsAt``). Sending never raises: a lost alert is
logged, and the work that raised it goes on.
"""

from __future__ import annotations

import datetime

from oslo_log import log as logging
import oslo_messaging
import requests

LOG = logging.getLogger(__name__)
# Subjects remembered so that a repeating alert is logged once; past this many the memory restarts.
MAX_LOGGED_SUBJECTS = 10000

PUBLISHER_ID = "keyvrm"
RECOMMENDATION_ERROR = "keyvrm.recommendation.error"
FENCING_ERROR = "keyvrm.fencing.error"
HA_ERROR = "keyvrm.ha.error"
HA_WARNING = "keyvrm.ha.warning"
FAILOVER_CAPACITY = "keyvrm.ha.failover_capacity"
ALERTMANAGER_PATH = "/api/v2/alerts"

_ALERT_NAMES = {RECOMMENDATION_ERROR: "KeyVRMRecommendationError",
                FENCING_ERROR: "KeyVRMFencingError", HA_ERROR: "KeyVRMHAError",
                HA_WARNING: "KeyVRMHAWarning", FAILOVER_CAPACITY: "KeyVRMFailoverCapacity"}
_WARNINGS = frozenset({HA_WARNING, FAILOVER_CAPACITY})
_LABEL_KEYS = ("aggregate", "action", "vm_id", "source_host", "target_host", "host",
               "event_id", "recommendation_id", "error_class", "reason_code")


def alertmanager_endpoint(url):
    """The alerts URL for a configured Alertmanager base URL (or None when not configured)."""
    if not url:
        return None
    url = url.rstrip("/")
    return url if url.endswith(ALERTMANAGER_PATH) else url + ALERTMANAGER_PATH


def alert_of(event_type, payload) -> dict:
    """The Alertmanager v2 alert for one notification: labels to route on, text to read."""
    labels = {"alertname": _ALERT_NAMES[event_type],
              "severity": "warning" if event_type in _WARNINGS else "critical",
              "service": "keyvrm"}
    labels.update({k: str(payload[k]) for k in _LABEL_KEYS if payload.get(k) is not None})
    alert = {"labels": labels,
             "annotations": {"summary": payload.get("reason") or event_type,
                             "description": str(payload.get("error") or "")}}
    if payload.get("failed_at") is not None:
        at = datetime.datetime.fromtimestamp(payload["failed_at"], datetime.timezone.utc).isoformat()
        alert["endsAt" if payload.get("cleared") else "startsAt"] = at
    return alert


class Notifier:
    """Sends KeyVRM's alerts; one per process, shared by the executor and the fencing step."""

    def __init__(self, conf, transport=None, driver=None, topics=None):
        self._transport = transport or oslo_messaging.get_notification_transport(conf)
        self._notifier = oslo_messaging.Notifier(self._transport, publisher_id=PUBLISHER_ID,
                                                 driver=driver, topics=topics)
        self._alertmanager = alertmanager_endpoint(conf.executor.alertmanager_url)
        drivers = [driver] if driver is not None else conf.oslo_messaging_notifications.driver
        if all(name == "noop" for name in drivers) and not self._alertmanager:  # the default: no driver at all
            LOG.warning("KeyVRM alerts go only to this log: set [oslo_messaging_notifications] driver = "
                        "messagingv2 and/or [executor] alertmanager_url to send them")
        self._timeout_s = conf.executor.alertmanager_timeout
        self._logged = set()  # (event type, subject, reason, cleared) of the alerts logged

    def recommendation_error(self, payload: dict) -> None:
        """Alert that a recommendation ended ``failed`` (payload: see the module docstring)."""
        self._send(RECOMMENDATION_ERROR, payload)

    def fencing_error(self, payload: dict) -> None:
        """Alert that a host could not be fenced (payload: see the module docstring)."""
        self._send(FENCING_ERROR, payload)

    def ha_error(self, payload: dict) -> None:
        """Alert that an HA run held back or left VMs down (payload: see the module docstring)."""
        self._send(HA_ERROR, payload)

    def ha_warning(self, payload: dict) -> None:
        """Warn of a host HA saw but will not act on (payload: see the module docstring)."""
        self._send(HA_WARNING, payload)

    def failover_capacity(self, payload: dict) -> None:
        """Alert that an aggregate fell short of its failover reserve, or recovered (see the module docstring)."""
        self._send(FAILOVER_CAPACITY, payload)

    def _log_once(self, event_type, payload):
        """Log the alert at WARNING (a warning) or ERROR, once per subject and reason while it repeats.

        HA sends its alerts again at every run that finds the condition, as a firing
        Prometheus alert is; the log says it once, so it is readable where no alert
        transport is set (the first thing a new deployment has).
        """
        subject = (event_type, payload.get("recommendation_id") or payload.get("host") or payload.get("aggregate"),
                   payload.get("reason_code") or payload.get("error_rule"), payload.get("cleared"))
        if subject in self._logged:
            return
        if len(self._logged) >= MAX_LOGGED_SUBJECTS:
            self._logged.clear()
        self._logged.add(subject)
        what = payload.get("reason") or payload.get("message") or payload.get("error") or ""
        keys = ("aggregate", "host", "vm_id", "recommendation_id", "reason_code")
        where = ", ".join("%s %s" % (key, payload[key]) for key in keys if payload.get(key))
        level = logging.WARNING if event_type in _WARNINGS else logging.ERROR
        LOG.log(level, "alert %s: %s (%s)", event_type, what, where)

    def _send(self, event_type, payload):
        self._log_once(event_type, payload)
        try:
            if event_type in _WARNINGS:
                self._notifier.warn({}, event_type, payload)
            else:
                self._notifier.error({}, event_type, payload)
        except Exception:
            LOG.exception("notification %s could not be sent: %s", event_type, payload)
        if self._alertmanager:
            try:
                response = requests.post(self._alertmanager, json=[alert_of(event_type, payload)],
                                         timeout=self._timeout_s)
                response.raise_for_status()
            except requests.RequestException as error:
                LOG.error("alert %s not accepted by %s: %s", event_type, self._alertmanager,
                          error)
