"""The fake cloud's in-memory databases outlive oslo.db's connection recycling (they used to die after an hour)."""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from tests.fakecloud import tuning


def _table_survives_a_checkout(create_engine):
    # a recycle time of 0 makes the next checkout what the 3600 s default makes the first one after an hour
    engine = create_engine("sqlite://", connection_recycle_time=0, max_retries=0)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE kept (x INTEGER)"))
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT count(*) FROM kept"))
        return True
    except db_exc.DBNonExistentTable:  # no such table: a new connection is a new, empty database
        return False
    finally:
        engine.dispose()


def test_an_in_memory_sqlite_database_is_lost_when_oslo_db_recycles_its_connection_unless_kept():
    assert not _table_survives_a_checkout(engines.create_engine)
    assert _table_survives_a_checkout(tuning._create_engine_kept)


def test_only_in_memory_sqlite_urls_are_kept():
    assert tuning.is_in_memory_sqlite("sqlite://") and tuning.is_in_memory_sqlite("sqlite:///:memory:")
    assert not tuning.is_in_memory_sqlite("sqlite:////tmp/nova.sqlite")
    assert not tuning.is_in_memory_sqlite("postgresql+psycopg2://nova@db/nova")
