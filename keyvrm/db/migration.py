"""Schema migrations: bring a database to the newest alembic revision, or tell its revision."""

import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")

# TaskFlow's persistence lives in the same database (keyvrm.engine.persistence) with its
# own migrations and version table; our migrations and schema checks leave these alone.
TASKFLOW_VERSION_TABLE = "taskflow_alembic_version"
TASKFLOW_TABLES = frozenset({"logbooks", "flowdetails", "atomdetails", TASKFLOW_VERSION_TABLE})


def include_object(obj, name, type_, reflected, compare_to):
    """Alembic's filter: KeyVRM's own tables (and their parts) only, never TaskFlow's."""
    table = obj if type_ == "table" else getattr(obj, "table", None)
    return getattr(table, "name", name) not in TASKFLOW_TABLES


def _config(connection):
    cfg = alembic_config.Config()
    cfg.set_main_option("script_location", MIGRATIONS_DIR)
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(engine, revision="head"):
    """Apply every migration up to ``revision`` on ``engine``'s database."""
    with engine.begin() as connection:
        command.upgrade(_config(connection), revision)


def current_revision(engine):
    """The revision the database is at (None for an empty database)."""
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(connection).get_current_revision()


def head_revision():
    """The newest revision this code ships."""
    return alembic_script.ScriptDirectory(MIGRATIONS_DIR).get_current_head()
