"""A database outage as the API sees it: its log lines.

An error ``keyvrm.db.availability`` calls "unreachable" is answered 503 with
``Retry-After`` (``[api] retry_after`` seconds, see ``errors.py``); the log gets one warning when an outage begins, a
reminder at most every ``REMINDER_S`` while it lasts, and one line when a request is
served again, instead of a traceback per request.
"""

import threading
import time

from oslo_log import log as logging

from keyvrm.db import availability

LOG = logging.getLogger(__name__)

REMINDER_S = 60.0


class OutageLog:
    """Logs a database outage once, not once per refused request; thread-safe (one per API app).

    ``retry_after`` is the seconds a refused client is asked to wait.
    """

    def __init__(self, retry_after, clock=time.monotonic):
        self.retry_after = retry_after
        self._clock = clock
        self._lock = threading.Lock()
        self._began = None
        self._reminded = None
        self._refused = 0

    def refused(self, exc, request_id):
        """A request was answered 503 because of ``exc``: warn if an outage begins, or remind."""
        now = self._clock()
        with self._lock:
            self._refused += 1
            if self._began is None:
                self._began = self._reminded = now
                LOG.warning("database unavailable, answering 503 until it is back (first request %s): %s",
                            request_id, availability.describe(exc))
            elif now - self._reminded >= REMINDER_S:
                self._reminded = now
                LOG.warning("database still unavailable after %.0f s, %d requests refused: %s",
                            now - self._began, self._refused, availability.describe(exc))

    def served(self):
        """A request that needs the database succeeded: end the outage, if there was one."""
        if self._began is None:  # the common case, without taking the lock
            return
        now = self._clock()
        with self._lock:
            if self._began is None:
                return
            LOG.info("database available again after %.1f s; %d requests were refused",
                     now - self._began, self._refused)
            self._began = self._reminded = None
            self._refused = 0
