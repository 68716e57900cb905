"""Process tuning that lets the fake cloud run hundreds of computes: no Nova or Placement code changes.

What a compute costs here (measured on a 2-core machine, 500 computes): starting one
is ~140 ms of CPU, 92 ms of it in Placement requests (the resource tracker creates the
provider and writes its inventories and traits), half of those in ``jsonschema``
re-checking Placement's constant request schemas against their meta-schema on every
call. Idle, each compute costs what its RPC servers poll (see ``transport``) and its
service heartbeat writes (``report_interval``, the caller's choice). ``install()`` applies:

- ``transport.install()``: RPC listeners wait for messages instead of polling every 50 ms;
- ``jsonschema.validate`` checks each schema object once (validation itself unchanged);
- the root logger at WARNING once Nova's logging fixture is set up (``quiet_logging``):
  the fixture formats every DEBUG record and keeps INFO in memory that nobody reads here;
- in-memory SQLite engines never recycle their connection: oslo.db recycles pooled
  connections after ``connection_recycle_time`` (3600 s), and a new connection to
  ``sqlite://`` is a new, empty database, so after an hour every Nova and Placement call
  failed with a 500 (a test lasts minutes; a soak run hours).
"""

import logging

import jsonschema
from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators as jsonschema_validators
from oslo_db.sqlalchemy import engines

from tests.fakecloud import transport

_checked_schemas = set()


def _validate(instance, schema, cls=None, *args, **kwargs):
    """``jsonschema.validate`` with the schema's own check done once per schema object."""
    if cls is None:
        cls = jsonschema_validators.validator_for(schema)
    if id(schema) not in _checked_schemas:
        cls.check_schema(schema)
        _checked_schemas.add(id(schema))
    error = jsonschema_exceptions.best_match(cls(schema, *args, **kwargs).iter_errors(instance))
    if error is not None:
        raise error


_create_engine = engines.create_engine


def _create_engine_kept(sql_connection, *args, **kwargs):
    """``engines.create_engine``, an in-memory SQLite engine's connection never recycled (-1)."""
    if is_in_memory_sqlite(sql_connection):
        kwargs["connection_recycle_time"] = -1
    return _create_engine(sql_connection, *args, **kwargs)


def is_in_memory_sqlite(url) -> bool:
    """Whether ``url`` names a SQLite database that lives only in its connection."""
    text = str(url)
    return text.startswith("sqlite") and (text.split("://", 1)[-1] in ("", "/", "/:memory:")
                                          or "mode=memory" in text)


def install():
    """Patch this process before the cloud is set up (RPC servers start during set-up)."""
    transport.install()
    jsonschema.validate = _validate
    engines.create_engine = _create_engine_kept


def quiet_logging():
    """Keep only warnings and errors, after Nova's logging fixture has set DEBUG."""
    logging.getLogger().setLevel(logging.WARNING)
