"""SQLite as a multi-threaded embedded database: every transaction takes the write lock up front.

With SQLite's default deferred transactions, a transaction that reads and then writes
while another connection is writing fails at once with "database is locked" (SQLite
refuses to wait, as waiting could deadlock). The embedded engine runs flows in threads
and TaskFlow's persistence writes beside the repositories, so each transaction begins
``IMMEDIATE``: a second writer then waits (busy timeout) instead of failing.
"""

import sqlalchemy as sa

BUSY_TIMEOUT_S = 30


def begin_immediate(engine):
    """Make every transaction on ``engine`` (a SQLite one) ``BEGIN IMMEDIATE``, waiting up to the busy timeout.

    oslo.db emits a plain ``BEGIN`` itself for each transaction; this rewrites it.
    """
    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record):
        dbapi_connection.execute("PRAGMA busy_timeout = %d" % (BUSY_TIMEOUT_S * 1000))

    @sa.event.listens_for(engine, "before_cursor_execute", retval=True)
    def _immediate(connection, cursor, statement, parameters, context, executemany):
        if statement == "BEGIN":
            statement = "BEGIN IMMEDIATE"
        return statement, parameters
