"""A database outage as the API sees it: which errors mean "database unreachable", and its log lines.

Such an error is answered 503 with ``Retry-After`` (see ``errors.py``); the log gets one
warning when an outage begins, a reminder at most every ``REMINDER_S`` while it lasts,
and one line when a request is served again, instead of a traceback per request.
"""

import sqlite3
import threading
import time

from oslo_db import exception as db_exception
from oslo_log import log as logging
import sqlalchemy.exc

LOG = logging.getLogger(__name__)

RETRY_AFTER_S = 5
REMINDER_S = 60.0
# SQLSTATEs a PostgreSQL driver reports when the server is gone or not accepting
# connections: class 08 (connection exception), admin/crash shutdown, cannot connect now.
_PG_UNAVAILABLE = ("57P01", "57P02", "57P03")


def _causes(exc):
    """``exc`` and the errors it wraps (oslo.db's inner_exception, ``raise ... from``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = getattr(exc, "inner_exception", None) or exc.__cause__


def _driver_error_is_unreachable(orig):
    """True if a DB-API error of the driver means the server (or the SQLite file) cannot be reached."""
    if isinstance(orig, sqlite3.Error):
        return getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_CANTOPEN
    if hasattr(orig, "pgcode") or hasattr(orig, "sqlstate"):  # psycopg2, psycopg 3
        code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
        # libpq-level failures (refused, reset, timed out) carry no SQLSTATE
        return code is None or code.startswith("08") or code in _PG_UNAVAILABLE
    return False


def is_database_unavailable(exc):
    """True if ``exc`` says the database cannot be reached now (not that a statement is wrong)."""
    for cause in _causes(exc):
        if isinstance(cause, db_exception.DBConnectionError):
            return True
        if isinstance(cause, sqlalchemy.exc.DBAPIError) and cause.connection_invalidated:
            return True
        if isinstance(cause, (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError)):
            return _driver_error_is_unreachable(cause.orig)
    return False


class OutageLog:
    """Logs a database outage once, not once per refused request; thread-safe (one per API app)."""

    def __init__(self, clock=time.monotonic):
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
                            request_id, _one_line(exc))
            elif now - self._reminded >= REMINDER_S:
                self._reminded = now
                LOG.warning("database still unavailable after %.0f s, %d requests refused: %s",
                            now - self._began, self._refused, _one_line(exc))

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


def _one_line(exc):
    """The driver's message of ``exc`` on one line, without SQLAlchemy's background link."""
    cause = list(_causes(exc))[-1]
    text = str(getattr(cause, "orig", None) or cause)
    return " ".join(text.split())
