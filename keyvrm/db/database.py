"""The database KeyVRM writes to: its engines and transactions (oslo.db's enginefacade) and its clock."""

import datetime
import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from keyvrm.db import models
from keyvrm.db import sqlite
from keyvrm import exception

# The Python driver each URL dialect needs, and how to install it.
DRIVER_PACKAGES = {"psycopg2": "pip install 'keyvrm[postgresql]' (psycopg2-binary)",
                   "pymysql": "pip install PyMySQL"}


utcnow = models.utcnow


def check_driver(connection_url) -> None:
    """Refuse, naming ``[database] connection`` and the package, a URL whose Python driver is not installed."""
    try:
        url = sa.engine.make_url(connection_url)
        url.get_dialect().import_dbapi()
    except ImportError as error:
        driver = getattr(error, "name", None) or str(error)
        how = DRIVER_PACKAGES.get(driver, "install the Python driver %s" % driver)
        raise exception.InvalidField("[database] connection", "the database driver of %s:// is not installed"
                                     " (%s): %s" % (url.drivername, driver, how)) from None


class _Context:
    """The per-call context object oslo.db's enginefacade attaches its session to."""


class Database:
    """One database (a URL): engines and transactions through oslo.db's enginefacade."""

    def __init__(self, connection_url, clock=None, **engine_options):
        check_driver(connection_url)
        self.url = connection_url
        self.clock = clock
        self._facade = enginefacade.transaction_context()
        self._facade.configure(connection=connection_url, sqlite_fk=True, **engine_options)
        if connection_url.startswith("sqlite"):
            sqlite.begin_immediate(self.engine)
        self._last_now = None
        self._now_lock = threading.Lock()
        if clock is not None:
            sa.event.listen(self.engine, "checkout", self._lend_clock)

    def _lend_clock(self, dbapi_connection, connection_record, connection_proxy):
        connection_record.info[models.CLOCK_INFO_KEY] = self.now

    def now(self):
        """Naive UTC now on this database's clock (the injected one; the wall without one).

        On an injected clock the readings strictly increase (a microsecond apart at least):
        a simulated clock stands still between its steps, and "oldest first" must still
        be the order rows were written in.
        """
        if self.clock is None:
            return utcnow()
        now = models.as_stored_time(self.clock.time())
        with self._now_lock:
            if self._last_now is not None and now <= self._last_now:
                now = self._last_now + datetime.timedelta(microseconds=1)
            self._last_now = now
        return now

    def writer(self):
        """A read-write transaction: ``with db.writer() as session: ...``."""
        return self._facade.writer.using(_Context())

    def reader(self):
        """A read-only transaction."""
        return self._facade.reader.using(_Context())

    @property
    def engine(self):
        return self._facade.writer.get_engine()

    def dispose(self):
        """Close every pooled connection."""
        self.engine.dispose()

    def ping(self):
        """Ask the database for nothing; raises while it cannot be reached."""
        with self.engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
