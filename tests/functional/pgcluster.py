"""A PostgreSQL server of a test's own: initdb in a temp dir, its own loopback port, stopped and started at will.

Outage tests stop this server, never the machine's. As root, the server runs as the
``postgres`` user (PostgreSQL refuses to run as root).
"""

import glob
import os
import shutil
import socket
import subprocess

import sqlalchemy as sa


def _bindir():
    found = shutil.which("pg_ctl")
    if found:
        return os.path.dirname(os.path.realpath(found))
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not candidates:
        raise RuntimeError("no PostgreSQL server binaries (pg_ctl) on this machine")
    return os.path.dirname(candidates[-1])


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateCluster:
    """One PostgreSQL cluster under ``base_dir``, trust auth on 127.0.0.1:``port``."""

    def __init__(self, base_dir):
        self.base_dir = base_dir
        self.data_dir = os.path.join(base_dir, "data")
        self.log_path = os.path.join(base_dir, "postgresql.log")
        self.port = _free_port()
        self._bindir = _bindir()
        self._as_postgres = os.geteuid() == 0

    def _run(self, tool, *args):
        command = [os.path.join(self._bindir, tool), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--"] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def init(self):
        """initdb (trust auth, no fsync: a throwaway cluster)."""
        os.makedirs(self.base_dir, exist_ok=True)
        if self._as_postgres:
            shutil.chown(self.base_dir, "postgres", "postgres")
        self._run("initdb", "-D", self.data_dir, "-A", "trust", "-U", "postgres", "--no-sync")
        return self

    def start(self):
        """Start the server and wait until it accepts connections."""
        options = "-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off -c full_page_writes=off" % (
            self.port, self.base_dir)
        self._run("pg_ctl", "-D", self.data_dir, "-l", self.log_path, "-o", options, "-w", "start")

    def stop(self, mode="fast"):
        """Stop the server (``fast``: every session is cut, as when a server goes down)."""
        self._run("pg_ctl", "-D", self.data_dir, "-m", mode, "-w", "stop")

    def url(self, database="postgres"):
        return "postgresql+psycopg2://postgres@127.0.0.1:%d/%s" % (self.port, database)

    def create_database(self, name):
        """A new database on this server; its URL."""
        server = sa.create_engine(self.url(), isolation_level="AUTOCOMMIT")
        with server.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE "%s"' % name))
        server.dispose()
        return self.url(name)
