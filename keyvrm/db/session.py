"""The database a process uses, as the deployment config names it."""

import os

from keyvrm.db import api


def database_from_conf(conf):
    """A ``Database`` for ``[database] connection``; makes the SQLite state dir if needed."""
    url = conf.database.connection
    if url.startswith("sqlite:///"):
        directory = os.path.dirname(url[len("sqlite:///"):])
        if directory:
            os.makedirs(directory, exist_ok=True)
    return api.Database(url)
