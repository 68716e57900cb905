"""Two engines on Redis: one runs the schedule; kill it and the other takes the schedule and its job.

Both engines are forked processes on one PostgreSQL database, one Redis jobboard and one
tooz lock (unique namespace per run). Who runs the schedule is who posts the MasterFlows
(any conductor may then run them). Engine A starts alone, becomes leader and claims a
job that waits for the test; B joins. While both live only A posts MasterFlows. A is then
SIGKILLed: B must take over the schedule within the leader lock TTL (plus a tick) and,
once A's liveness key has expired, the reaper hands A's job back and B resumes it.
"""

import os
import signal
import time

import pytest

from keyvrm.engine import persistence as engine_persistence
from tests.functional.engine import cluster as engine_cluster

TAKEOVER_BOUND_S = engine_cluster.TAKEOVER_BOUND_S
wait_for = engine_cluster.wait_for


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
