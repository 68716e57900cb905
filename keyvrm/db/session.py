"""The database a process uses, as the deployment config names it."""

import os

from keyvrm.db import api

# oslo.db's [database] options that shape the engine (enginefacade names), and its pool's:
# SQLite has no pool to size (oslo.db refuses pool arguments for it).
ENGINE_OPTIONS = ("max_retries", "retry_interval", "connection_debug", "connection_trace",
                  "connection_parameters", "mysql_sql_mode", "sqlite_synchronous")
POOL_OPTIONS = ("max_pool_size", "max_overflow", "pool_timeout", "connection_recycle_time")


def engine_options(group) -> dict:
    """The engine (and, but for SQLite, pool) settings of a ``[database]`` group, as enginefacade takes them."""
    names = ENGINE_OPTIONS + (() if group.connection.startswith("sqlite") else POOL_OPTIONS)
    return {name: getattr(group, name) for name in names if getattr(group, name, None) is not None}


def database_from_conf(conf):
    """A ``Database`` for ``[database] connection`` with its pool options; makes the SQLite state dir if needed."""
    url = conf.database.connection
    if url.startswith("sqlite:///"):
        directory = os.path.dirname(url[len("sqlite:///"):])
        if directory:
            os.makedirs(directory, exist_ok=True)
    return api.Database(url, **engine_options(conf.database))
