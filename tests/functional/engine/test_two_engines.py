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
TTL_S = 2
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


@pytest.mark.slow
def test_second_engine_takes_over_schedule_and_jobs_of_a_killed_leader(pg_databases, redis_client, tmp_path):
    url = pg_databases()
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    db_api.update_app_config(db, {"period": 1}, changed_by="test")
    namespace = "keyvrm-test-%s" % uuid.uuid4().hex[:8]
    ledger = str(tmp_path / "cloud.jsonl")
    persistence = engine_persistence.Persistence(url)
    persistence.upgrade()
    board = service.jobboard_from_url(REDIS_URL, namespace, persistence.backend, "test-poster")
    board.connect()
    poster = dispatch.JobboardDispatcher(None, persistence, board,
                                         flows=miniflows.build_registry(miniflows.TestContext()))
    engines = {}
    try:
        engines["A"] = fork_engine(url, ledger, "A", namespace)
        wait_for(lambda: len(scheduled(redis_client, namespace)) >= 2, 20, "A's first cycles")
        wait_for(lambda: redis_client.llen(namespace + ":test:cycles"), 10, "a posted MasterFlow to run")
        poster.dispatch("slow", {"marker": "started"})
        assert wait_for(lambda: markers(redis_client, namespace, "started"), 10, "the job to start") == ["A"]

        engines["B"] = fork_engine(url, ledger, "B", namespace)
        wait_for(lambda: redis_client.exists(namespace + ":conductor:B"), 20, "B's conductor")
        seen = len(scheduled(redis_client, namespace))
        wait_for(lambda: len(scheduled(redis_client, namespace)) >= seen + 2, 10, "cycles with both engines up")
        assert {engine for engine, _ in scheduled(redis_client, namespace)} == {"A"}

        os.kill(engines["A"].pid, signal.SIGKILL)
        killed_at = time.time()
        engines["A"].join(5)
        first_b = wait_for(lambda: [t for e, t in scheduled(redis_client, namespace) if e == "B"],
                           TAKEOVER_BOUND_S, "B to run the schedule")[0]
        takeover_s = first_b - killed_at
        wait_for(lambda: "B" in markers(redis_client, namespace, "started"), TAKEOVER_BOUND_S + 2,
                 "B to resume A's job")
        resume_s = time.time() - killed_at
        redis_client.set(namespace + ":test:release", "1")
        assert wait_for(lambda: markers(redis_client, namespace, "done"), 10, "the job to finish") == ["B"]
        wait_for(lambda: board.job_count == 0, 10, "the job to be consumed")
        assert persistence.unfinished(engine_persistence.JOB) == []
        after_kill = [e for e, t in scheduled(redis_client, namespace) if t > killed_at]
        assert set(after_kill) == {"B"}
        print("takeover of the schedule: %.2f s; job resumed after %.2f s" % (takeover_s, resume_s))

        engines["B"].terminate()
        engines["B"].join(15)
        assert engines["B"].exitcode == 0
        assert not redis_client.exists(namespace + ":conductor:B")
    finally:
        for process in engines.values():
            if process.is_alive():
                process.kill()
                process.join()
        board.close()
        persistence.close()
        db.dispose()
        for key in redis_client.scan_iter(match=namespace + "*"):
            redis_client.delete(key)
