"""Fixtures shared by every test: databases (SQLite per test, a throwaway PostgreSQL per run)."""

import concurrent.futures
import os
import shutil
import uuid

from hypothesis import settings as hypothesis_settings
import pytest
import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.db import models

PG_SERVER_URL = os.environ.get("KEYVRM_TEST_PG_SERVER",
                               "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


# Property tests explore new examples on a developer's machine; in CI they draw the same
# ones every run, so a red CI always reproduces (and a new finding shows up locally first).
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if _in_ci():
    hypothesis_settings.load_profile("ci")


@pytest.fixture(scope="session")
def migrated_sqlite_file(tmp_path_factory):
    """A SQLite file migrated to head once per run (per xdist worker): the copy ``sqlite_db`` starts from."""
    path = tmp_path_factory.mktemp("schema") / "keyvrm.sqlite"
    db = db_api.Database("sqlite:///%s" % path)
    migration.upgrade(db.engine)
    db.dispose()
    return path


@pytest.fixture
def sqlite_db(tmp_path, migrated_sqlite_file):
    """A migrated SQLite database in the test's temp dir (a copy of the run's migrated file)."""
    path = tmp_path / "keyvrm.sqlite"
    shutil.copyfile(migrated_sqlite_file, path)
    db = db_api.Database("sqlite:///%s" % path)
    yield db
    db.dispose()


@pytest.fixture(scope="session")
def pg_databases():
    """Makes throwaway PostgreSQL databases for this run (``pg_databases()`` -> URL); drops them after.

    Skipped when no server answers, except in CI (CI=true), where that is a failure.
    """
    server = sa.create_engine(PG_SERVER_URL, isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as exc:
        server.dispose()
        if _in_ci():
            pytest.fail("PostgreSQL is required in CI: %s" % exc)
        pytest.skip("no PostgreSQL at %s" % PG_SERVER_URL)
    created = []

    def create():
        name = "keyvrm_test_%s" % uuid.uuid4().hex[:12]
        with server.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE "%s"' % name))
        created.append(name)
        return sa.engine.make_url(PG_SERVER_URL).set(database=name).render_as_string(
            hide_password=False)

    yield create

    def drop(name):
        with server.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name))
    # dropped at once: each DROP DATABASE waits for a checkpoint, and drops in flight together share one
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(created))) as pool:
        list(pool.map(drop, created))
    server.dispose()


@pytest.fixture(scope="session")
def pg_url(pg_databases):
    """One migrated PostgreSQL database shared by this run's tests."""
    url = pg_databases()
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    db.dispose()
    return url


@pytest.fixture
def pg_db(pg_url):
    """The run's PostgreSQL database, emptied of rows after the test."""
    db = db_api.Database(pg_url)
    yield db
    with db.engine.begin() as conn:
        for table in reversed(models.Base.metadata.sorted_tables):
            conn.execute(table.delete())
    db.dispose()
