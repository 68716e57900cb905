"""TaskFlow persistence in the KeyVRM database: what lets a killed engine resume its flows.

TaskFlow keeps its own tables (``logbooks``, ``flowdetails``, ``atomdetails``) next to
KeyVRM's. Its schema is upgraded with TaskFlow's own alembic scripts, but tracked in
``taskflow_alembic_version`` so it never touches KeyVRM's ``alembic_version`` (TaskFlow's
env.py would use that table and fail on our revision). On SQLite TaskFlow itself builds
the tables from its metadata (its scripts alter columns SQLite cannot), and so do we.

Every flow an engine starts gets a logbook of its own whose meta names the registered
flow and its store, so any engine can rebuild it after a crash; a finished flow's
logbook is deleted (the KeyVRM tables are the record, this is only for resuming).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Optional

from alembic import config as alembic_config
from alembic.runtime import environment
from alembic import script as alembic_script
import sqlalchemy as sa
from taskflow import exceptions as taskflow_exc
from taskflow.persistence.backends import impl_memory
from taskflow.persistence.backends import impl_sqlalchemy
from taskflow.persistence.backends.sqlalchemy import tables as taskflow_tables
from taskflow.persistence import models as taskflow_models
from taskflow import states

from keyvrm.db import api as db_api
from keyvrm.db import migration

VERSION_TABLE = migration.TASKFLOW_VERSION_TABLE
META_KEY = "keyvrm"
# How a flow is run: in the engine that started it, or as a jobboard job any conductor claims.
LOCAL = "local"
JOB = "job"
# An arbitrary constant: the PostgreSQL advisory lock that serialises concurrent upgrades.
_UPGRADE_LOCK_KEY = 0x6B657976726D  # "keyvrm"
FINISHED_STATES = frozenset({states.SUCCESS, states.REVERTED, states.FAILURE})


def _migrations_dir():
    return os.path.join(os.path.dirname(impl_sqlalchemy.__file__), "sqlalchemy", "alembic")


def upgrade_schema(engine: sa.engine.Engine) -> None:
    """Create or upgrade TaskFlow's tables in ``engine``'s database (safe to call from every engine)."""
    if engine.dialect.name == "sqlite":
        metadata = sa.MetaData()
        taskflow_tables.fetch(metadata)
        with engine.begin() as connection:
            metadata.create_all(connection)
        return
    cfg = alembic_config.Config()
    cfg.set_main_option("script_location", _migrations_dir())
    script = alembic_script.ScriptDirectory.from_config(cfg)

    def upgrade(revision, context):
        return script._upgrade_revs("head", revision)

    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _UPGRADE_LOCK_KEY})
        with environment.EnvironmentContext(cfg, script, fn=upgrade, destination_rev="head") as env:
            env.configure(connection=connection, version_table=VERSION_TABLE)
            with env.begin_transaction():
                env.run_migrations()


@dataclasses.dataclass(frozen=True)
class FlowRecord:
    """One persisted flow: its logbook, its flow detail, and what rebuilds it."""

    book: taskflow_models.LogBook
    flow_detail: taskflow_models.FlowDetail
    flow_name: str
    store: dict
    mode: str

    @property
    def flow_uuid(self) -> str:
        return self.flow_detail.uuid


class Persistence:
    """TaskFlow's SQLAlchemy backend on the KeyVRM database, with KeyVRM's flow bookkeeping.

    ``in_memory`` keeps the flows in TaskFlow's memory backend instead (the simulator's
    scenario checks: five times faster, and a flow survives a restart of the dispatcher in
    the same process, not of the process).
    """

    def __init__(self, connection_url: str, in_memory: bool = False):
        # TaskFlow shares the repositories' engine: the same SQLite transaction discipline.
        self._db = db_api.Database(connection_url)
        self.in_memory = in_memory
        self.backend = impl_memory.MemoryBackend() if in_memory else \
            impl_sqlalchemy.SQLAlchemyBackend({"connection": connection_url}, engine=self._db.engine)

    def upgrade(self) -> None:
        """Bring TaskFlow's tables to the newest schema (nothing to do in memory)."""
        if not self.in_memory:
            upgrade_schema(self.backend.engine)

    def create(self, flow_name: str, store: dict, mode: str) -> FlowRecord:
        """Persist a new flow (logbook + flow detail) before it runs, so a crash cannot lose it."""
        meta = {META_KEY: {"flow": flow_name, "store": dict(store), "mode": mode}}
        book = taskflow_models.LogBook("keyvrm-%s" % flow_name)
        book.meta = meta
        detail = taskflow_models.FlowDetail(flow_name, uuid=book.uuid)
        detail.meta = meta
        book.add(detail)
        with self._connection() as conn:
            conn.save_logbook(book)
        return FlowRecord(book, detail, flow_name, dict(store), mode)

    def find(self, book_uuid: str) -> Optional[FlowRecord]:
        """The flow persisted in logbook ``book_uuid`` (None when it was finished and forgotten)."""
        with self._connection() as conn:
            try:
                return _record(conn.get_logbook(book_uuid))
            except taskflow_exc.NotFound:
                return None

    def unfinished(self, mode: str) -> list[FlowRecord]:
        """Flows of ``mode`` that have not finished (including ones that never started), oldest first."""
        with self._connection() as conn:
            books = sorted(conn.get_logbooks(), key=lambda b: b.created_at)
        records = [_record(book) for book in books]
        return [r for r in records if r is not None and r.mode == mode
                and r.flow_detail.state not in FINISHED_STATES]

    def forget(self, book_uuid: str) -> None:
        """Delete a finished flow's logbook (and its flow and atom details)."""
        with self._connection() as conn:
            try:
                conn.destroy_logbook(book_uuid)
            except taskflow_exc.NotFound:
                pass

    def ping(self) -> None:
        """Ask the database for nothing; raises while it cannot be reached."""
        self._db.ping()

    def close(self) -> None:
        """Close the pooled connections."""
        self.backend.close()
        self._db.dispose()

    def _connection(self):
        return _Closing(self.backend.get_connection())


class _Closing:
    def __init__(self, connection):
        self._connection = connection

    def __enter__(self):
        return self._connection

    def __exit__(self, *exc_info):
        self._connection.close()


def _record(book) -> Optional[FlowRecord]:
    meta = (book.meta or {}).get(META_KEY)
    if not meta:
        return None
    details = list(book)
    if len(details) != 1:
        return None
    return FlowRecord(book, details[0], meta["flow"], dict(meta["store"]), meta["mode"])
