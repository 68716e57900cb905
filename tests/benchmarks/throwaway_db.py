"""A throwaway PostgreSQL database for one benchmark run: created on a server, dropped (with its sessions) after."""

import os
import uuid

import sqlalchemy as sa

PG_SERVER = os.environ.get("KEYVRM_TEST_PG_SERVER", "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")


def create(server_url=PG_SERVER):
    """A new, empty database on ``server_url``: (name, URL)."""
    server = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    name = "keyvrm_bench_%s" % uuid.uuid4().hex[:10]
    try:
        with server.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE "%s"' % name))
    finally:
        server.dispose()
    return name, sa.engine.make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop(name, server_url=PG_SERVER):
    """Drop database ``name``, closing whatever sessions still use it."""
    server = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with server.connect() as conn:
            conn.execute(sa.text('DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % name))
    finally:
        server.dispose()
