"""Engines on Redis for the functional tests: one PostgreSQL database, a Redis namespace, forked engines.

Each engine is ``engine_proc`` forked (``multiprocessing`` fork context), sharing one
jobboard and one tooz lock under a namespace unique to the test; what the engines do is
traced in Redis under ``<namespace>:test:`` (MasterFlows posted, jobs started, purge
batches).
"""

import json
import multiprocessing
import os
import time
import uuid

import pytest

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.engine import dispatch
from keyvrm.engine import persistence as engine_persistence
from keyvrm.engine import service
from tests.functional.engine import engine_proc
from tests.functional.engine import miniflows

REDIS_URL = os.environ.get("KEYVRM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# Long enough that a leader's tick delayed by a busy CI machine does not hand the lock over
# while it lives (a 2 s TTL did, once); the takeover bound follows from it.
TTL_S = 5
TAKEOVER_BOUND_S = 2 * TTL_S + 3


def wait_for(predicate, timeout_s, what):
    """``predicate()``'s first true value within ``timeout_s``; the test fails naming ``what`` otherwise."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail("timed out after %s s waiting for %s" % (timeout_s, what))


class Cluster:
    """One PostgreSQL database, one Redis namespace, a poster of jobs, and forked engines."""

    def __init__(self, url, client, ledger):
        self.url, self.redis, self.ledger = url, client, ledger
        self.namespace = "keyvrm-test-%s" % uuid.uuid4().hex[:8]
        self.db = db_api.Database(url)
        migration.upgrade(self.db.engine)
        db_api.update_app_config(self.db, {"period": 1}, changed_by="test")
        self.persistence = engine_persistence.Persistence(url)
        self.persistence.upgrade()
        self.board = service.jobboard_from_url(REDIS_URL, self.namespace, self.persistence.backend, "test-poster")
        self.board.connect()
        self.poster = dispatch.JobboardDispatcher(None, self.persistence, self.board,
                                                  flows=miniflows.build_registry(miniflows.TestContext()))
        self.engines = []
        self.ttl_s = TTL_S  # the engines' leader lock and liveness TTL (set before forking)

    def fork(self, name, *options):
        """Start engine ``name`` (``engine_proc`` with ``options`` besides the cluster's own)."""
        process = multiprocessing.get_context("fork").Process(target=engine_proc.main, args=(
            ["--db", self.url, "--ledger", self.ledger, "--jobboard", REDIS_URL, "--name", name,
             "--namespace", self.namespace, "--ttl", str(self.ttl_s)] + list(options),))
        process.start()
        self.engines.append(process)
        return process

    def scheduled(self):
        """[(engine that posted a MasterFlow, when)], oldest first."""
        return [tuple(json.loads(v)) for v in self.redis.lrange(self.namespace + ":test:scheduled", 0, -1)]

    def markers(self, marker):
        """The engines that passed ``marker`` (a test flow's trace), in order."""
        return [v.decode() for v in self.redis.lrange(self.namespace + ":test:" + marker, 0, -1)]

    def close(self):
        for process in self.engines:
            if process.is_alive():
                process.kill()
                process.join()
        self.board.close()
        self.persistence.close()
        self.db.dispose()
        for key in self.redis.scan_iter(match=self.namespace + "*"):
            self.redis.delete(key)
