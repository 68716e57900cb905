"""A leader's purge of 200k old rows on PostgreSQL, a second engine watching: nothing changes hands.

Two forked engines on one PostgreSQL database and one Redis (``cluster``). A leads and
runs a job that waits for the test; B joins and watches (its reaper, its bid for the
leader lock). Then 200k rows of history older than ``history_keep_days`` appear in one
transaction, and A's next hourly purge (an hour of two seconds here) deletes them in
committed batches of ``purge_max_rows`` on its housekeeping thread, while its beat
thread keeps the liveness key and the leader lock. Throughout, a sampler reads the lock
and A's liveness key every 50 ms: the lock keeps its holder and never lapses, A's key
never expires, A alone posts MasterFlows, and A's job is never handed to B.
"""

import json
import threading
import time

import pytest
import sqlalchemy as sa

from keyvrm.db import models
from keyvrm.db import purge
from tests.functional.engine import cluster as engine_cluster

PER_TABLE = 40_000  # cycles, events, recommendations, operations, VM history: 200k rows
# The engines' lock and liveness TTL: CI's parallel load once stalled a 5 s TTL's engine past it
# (B then led). The purge must outlast it (checked), or a purge that blocked the beat would pass.
TTL_S = 10
MAX_ROWS = 250  # small batches: the purge outlasts the TTL even on an idle machine
PURGE_INTERVAL_S = 2.0
SEED = """
INSERT INTO cycles (status, reason_code, started_at, finished_at)
  SELECT 'completed', 'purge-test', :old, :old FROM generate_series(1, :n);
INSERT INTO events (id, aggregate_name, kind, marker, status, cycle_id, created_at, updated_at, finished_at)
  SELECT 'old-' || id, 'agg', 'LB', 'LB', 'completed', id, :old, :old, :old
  FROM cycles WHERE reason_code = 'purge-test';
INSERT INTO recommendations (id, event_id, action, vm_id, source_host, status, attempts, created_at,
                             updated_at)
  SELECT 'rec-' || id, id, 'live_migrate', 'vm-' || id, 'cmp-1', 'succeeded', 1, :old, :old
  FROM events WHERE id LIKE 'old-%';
INSERT INTO operations (recommendation_id, kind, attempt, created_at)
  SELECT id, 'start', 1, :old FROM recommendations WHERE id LIKE 'rec-old-%';
INSERT INTO vm_history (vm_id, action, status, started_at, finished_at)
  SELECT 'vm-' || g, 'live_migrate', 'succeeded', :old, :old FROM generate_series(1, :n) g;
"""


class Sampler(threading.Thread):
    """Reads the leader lock (its token and time to live) and a liveness key's TTL every 50 ms."""

    def __init__(self, client, lock_key, liveness_key):
        super().__init__(daemon=True)
        self._client, self._lock_key, self._liveness_key = client, lock_key, liveness_key
        self.samples = []  # (time, lock token, lock pttl ms, liveness pttl ms)
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.05):
            pipe = self._client.pipeline()
            pipe.get(self._lock_key).pttl(self._lock_key).pttl(self._liveness_key)
            token, lock_ms, alive_ms = pipe.execute()
            self.samples.append((time.time(), token, lock_ms, alive_ms))

    def refreshes(self, since, until, column):
        """How often a key's time to live went up (it was refreshed) between ``since`` and ``until``."""
        ttls = [s[column] for s in self.samples if since <= s[0] <= until]
        return sum(1 for before, after in zip(ttls, ttls[1:]) if after > before)


def purged(c):
    """[(engine, table, rows, time)] of every committed purge batch, oldest first."""
    return [tuple(json.loads(v)) for v in c.redis.lrange(c.namespace + ":test:purged", 0, -1)]


@pytest.mark.slow
def test_a_purge_of_200k_old_rows_never_hands_leadership_or_a_job_to_the_watching_engine(cluster):
    c = cluster
    c.ttl_s = TTL_S
    wait_for = engine_cluster.wait_for
    options = ("--purge-interval", str(PURGE_INTERVAL_S), "--purge-max-rows", str(MAX_ROWS))
    c.fork("A", *options)
    wait_for(lambda: c.scheduled(), 20, "A to lead")
    c.poster.dispatch("slow", {"marker": "started"})
    assert wait_for(lambda: c.markers("started"), 10, "the job to start") == ["A"]
    c.fork("B", *options)
    wait_for(lambda: c.redis.exists(c.namespace + ":conductor:B"), 20, "B's conductor")
    lock_key = wait_for(lambda: list(c.redis.scan_iter(match="*%s-keyvrm-engine-leader*" % c.namespace)),
                        5, "the leader lock")[0]
    sampler = Sampler(c.redis, lock_key, c.namespace + ":conductor:A")
    sampler.start()

    with c.db.engine.begin() as connection:
        for statement in SEED.split(";")[:-1]:
            connection.execute(sa.text(statement), {"old": "2020-01-01", "n": PER_TABLE})
    seeded_at = time.time()
    wait_for(lambda: sum(rows for _, _, rows, _ in purged(c)) >= 5 * PER_TABLE, 600, "the purge to finish")
    batches = purged(c)
    started_at, finished_at = batches[0][3], batches[-1][3]
    time.sleep(TTL_S)  # B watches a while longer: a lapsed key would be reaped by now
    sampler.done.set()
    sampler.join()

    totals = {}
    for _, table, rows, _ in batches:
        totals[table] = totals.get(table, 0) + rows
    print("purge batches by engine: %s; lock samples: %d, lowest time to live %.1f s" % (
        {e: sum(1 for b in batches if b[0] == e) for e in {b[0] for b in batches}}, len(sampler.samples),
        min((s[2] for s in sampler.samples if s[2] is not None), default=-1) / 1000.0))
    assert finished_at - started_at > TTL_S, "the purge must outlast the lock's TTL to prove anything"
    assert {engine for engine, _, _, _ in batches} == {"A"}
    assert totals == {table: PER_TABLE for table in purge.TABLES if table != "cycle_outcomes"}
    assert len(batches) == 5 * PER_TABLE // MAX_ROWS
    with c.db.reader() as session:
        assert session.query(models.Event).count() == 0
    # leadership never changed hands, and never lapsed
    tokens = {token for _, token, _, _ in sampler.samples}
    assert len(tokens) == 1 and None not in tokens
    assert min(lock_ms for _, _, lock_ms, _ in sampler.samples) > 0
    assert sampler.refreshes(started_at, finished_at, 2) >= 1  # beaten while the purge ran
    assert {engine for engine, _ in c.scheduled()} == {"A"}
    # A's liveness key never expired, so B's reaper never took A's job
    assert min(alive_ms for _, _, _, alive_ms in sampler.samples) > 0
    assert c.markers("started") == ["A"]
    c.redis.set(c.namespace + ":test:release", "1")
    assert wait_for(lambda: c.markers("done"), 10, "the job to finish") == ["A"]
    print("purge of %d rows in %d batches of %d: %.1f s (seeded to first batch %.1f s); during it the "
          "leader lock was refreshed %d times and A's liveness key %d times, the lock's lowest time to "
          "live %.1f s of %d" % (
              sum(totals.values()), len(batches), MAX_ROWS, finished_at - started_at, started_at - seeded_at,
              sampler.refreshes(started_at, finished_at, 2), sampler.refreshes(started_at, finished_at, 3),
              min(lock_ms for _, _, lock_ms, _ in sampler.samples) / 1000.0, TTL_S))
