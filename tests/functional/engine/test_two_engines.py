"""Two engines on Redis: one runs the schedule; kill it and the other takes the schedule and its job.

Both engines are forked processes on one PostgreSQL database, one Redis jobboard and one
tooz lock (unique namespace per run). Who runs the schedule is who posts the MasterFlows
(any conductor may then run them). Engine A starts alone, becomes leader and claims a
job that waits for the test; B joins. While both live only A posts MasterFlows. A is then
SIGKILLed: B must take over the schedule within the leader lock TTL (plus a tick) and,
once A's liveness key has expired, the reaper hands A's job back and B resumes it.
"""

import json
import multiprocessing
import os
import signal
import time
import uuid

import pytest
import redis

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


@pytest.fixture
def redis_client():
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("Redis is required in CI: %s" % exc)
        pytest.skip("no Redis at %s" % REDIS_URL)
    yield client
    client.close()


def wait_for(predicate, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail("timed out after %s s waiting for %s" % (timeout_s, what))


def fork_engine(url, ledger, name, namespace):
    process = multiprocessing.get_context("fork").Process(target=engine_proc.main, args=(
        ["--db", url, "--ledger", ledger, "--jobboard", REDIS_URL, "--name", name,
         "--namespace", namespace, "--ttl", str(TTL_S)],))
    process.start()
    return process


def scheduled(client, namespace):
    """[(engine that posted a MasterFlow, when)], oldest first."""
    return [tuple(json.loads(v)) for v in client.lrange(namespace + ":test:scheduled", 0, -1)]


def markers(client, namespace, marker):
    return [v.decode() for v in client.lrange(namespace + ":test:" + marker, 0, -1)]


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

    def fork(self, name):
        process = fork_engine(self.url, self.ledger, name, self.namespace)
        self.engines.append(process)
        return process

    def scheduled(self):
        return scheduled(self.redis, self.namespace)

    def markers(self, marker):
        return markers(self.redis, self.namespace, marker)

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


@pytest.fixture
def cluster(pg_databases, redis_client, tmp_path):
    c = Cluster(pg_databases(), redis_client, str(tmp_path / "cloud.jsonl"))
    yield c
    c.close()


@pytest.mark.slow
def test_second_engine_takes_over_schedule_and_jobs_of_a_killed_leader(cluster):
    c = cluster
    a = c.fork("A")
    wait_for(lambda: len(c.scheduled()) >= 2, 20, "A's first cycles")
    wait_for(lambda: c.redis.llen(c.namespace + ":test:cycles"), 10, "a posted MasterFlow to run")
    c.poster.dispatch("slow", {"marker": "started"})
    assert wait_for(lambda: c.markers("started"), 10, "the job to start") == ["A"]

    b = c.fork("B")
    wait_for(lambda: c.redis.exists(c.namespace + ":conductor:B"), 20, "B's conductor")
    seen = len(c.scheduled())
    wait_for(lambda: len(c.scheduled()) >= seen + 2, 10, "cycles with both engines up")
    assert {engine for engine, _ in c.scheduled()} == {"A"}

    os.kill(a.pid, signal.SIGKILL)
    killed_at = time.time()
    a.join(5)
    first_b = wait_for(lambda: [t for e, t in c.scheduled() if e == "B"], TAKEOVER_BOUND_S,
                       "B to run the schedule")[0]
    takeover_s = first_b - killed_at
    wait_for(lambda: "B" in c.markers("started"), TAKEOVER_BOUND_S + 2, "B to resume A's job")
    resume_s = time.time() - killed_at
    c.redis.set(c.namespace + ":test:release", "1")
    assert wait_for(lambda: c.markers("done"), 10, "the job to finish") == ["B"]
    wait_for(lambda: c.board.job_count == 0, 10, "the job to be consumed")
    # B keeps posting MasterFlows every period; one may be in flight now. A's job must be done.
    assert [r.flow_name for r in c.persistence.unfinished(engine_persistence.JOB)
            if r.flow_name != "master"] == []
    assert {e for e, t in c.scheduled() if t > killed_at} == {"B"}
    print("takeover of the schedule: %.2f s; job resumed after %.2f s" % (takeover_s, resume_s))

    b.terminate()
    b.join(15)
    assert b.exitcode == 0
    assert not c.redis.exists(c.namespace + ":conductor:B")


@pytest.mark.slow
def test_restarted_engine_takes_back_its_own_job_at_once(cluster):
    c = cluster
    first = c.fork("A")
    c.poster.dispatch("slow", {"marker": "started"})
    wait_for(lambda: c.markers("started"), 20, "the job to start")
    os.kill(first.pid, signal.SIGKILL)
    first.join(5)
    killed_at = time.monotonic()
    c.fork("A")  # same conductor name, before its liveness key could expire
    wait_for(lambda: c.markers("started") == ["A", "A"], 20, "the restarted engine to resume its job")
    assert time.monotonic() - killed_at < TAKEOVER_BOUND_S
    c.redis.set(c.namespace + ":test:release", "1")
    wait_for(lambda: c.board.job_count == 0, 10, "the job to be consumed")
