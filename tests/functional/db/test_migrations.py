"""The alembic migrations build exactly the schema the models declare, on SQLite and PostgreSQL."""

import unittest

from oslo_db.sqlalchemy import test_migrations
import pytest
import sqlalchemy as sa

from keyvrm.db import migration
from keyvrm.db import models
from keyvrm.engine import persistence


class ModelsMatchMigrationsBase(test_migrations.ModelsMigrationsSync, unittest.TestCase):
    """oslo.db's check: migrate an empty database, then diff it against the models."""

    url = None
    __test__ = False

    def get_engine(self):
        return sa.create_engine(self.url)

    def db_sync(self, engine):
        migration.upgrade(engine)
        # TaskFlow's tables share the database (the engine's persistence); they must not disturb ours.
        persistence.upgrade_schema(engine)

    def include_object(self, object_, name, type_, reflected, compare_to):
        return migration.include_object(object_, name, type_, reflected, compare_to)

    def get_metadata(self):
        return models.Base.metadata


class TestSQLiteModelsMatchMigrations(ModelsMatchMigrationsBase):
    __test__ = True

    @pytest.fixture(autouse=True)
    def _database(self, tmp_path):
        self.url = "sqlite:///%s/sync.sqlite" % tmp_path


class TestPostgreSQLModelsMatchMigrations(ModelsMatchMigrationsBase):
    __test__ = True

    @pytest.fixture(autouse=True)
    def _database(self, pg_databases):
        self.url = pg_databases()


def test_empty_database_reports_no_revision_then_head(tmp_path):
    engine = sa.create_engine("sqlite:///%s/v.sqlite" % tmp_path)
    assert migration.current_revision(engine) is None
    migration.upgrade(engine)
    assert migration.current_revision(engine) == migration.head_revision()
