"""Whether the database can be reached: which errors mean "unreachable", and waiting for it to return.

The API answers such an error 503 (``keyvrm.api.outage``); the engine waits it out and
runs the step again (``keyvrm.flows.steps``). Any other database error is a real error.
"""

import sqlite3
import time

from oslo_db import exception as db_exception
from oslo_log import log as logging
import sqlalchemy.exc

LOG = logging.getLogger(__name__)

# SQLSTATEs a PostgreSQL driver reports when the server is gone or not accepting
# connections: class 08 (connection exception), admin/crash shutdown, cannot connect now.
_PG_UNAVAILABLE = ("57P01", "57P02", "57P03")
FIRST_WAIT_S = 0.5
MAX_WAIT_S = 5.0


def _causes(exc):
    """``exc`` and the errors it wraps (oslo.db's inner_exception, ``raise ... from``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        inner = getattr(exc, "inner_exception", None)
        exc = inner if isinstance(inner, BaseException) else exc.__cause__


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


def describe(exc):
    """The driver's message of ``exc`` on one line, without SQLAlchemy's background link."""
    cause = list(_causes(exc))[-1]
    text = str(getattr(cause, "orig", None) or cause)
    return " ".join(text.split())


def wait_until_available(ping, should_stop, *, sleep=None, first_wait_s=FIRST_WAIT_S,
                         max_wait_s=MAX_WAIT_S):
    """Call ``ping()`` with growing pauses until it succeeds (True) or ``should_stop()`` (False).

    ``ping`` raises while the database cannot be reached; any other error it raises is raised.
    """
    sleep = sleep or time.sleep
    wait_s = first_wait_s
    while not should_stop():
        sleep(wait_s)
        try:
            ping()
            return True
        except Exception as exc:
            if not is_database_unavailable(exc):
                raise
        wait_s = min(wait_s * 2, max_wait_s)
    return False
