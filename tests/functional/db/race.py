"""Run one database call from several workers at the same instant, each on its own engine."""

import threading

import sqlalchemy as sa

from keyvrm.db import api as db_api


def race(url, attempt, workers):
    """Outcomes of ``attempt(db, i)`` for i in range(workers), all released by one barrier.

    Every worker connects before the barrier (a pooled ``SELECT 1``, which writes
    nothing), so only the statement under test races.
    """
    barrier = threading.Barrier(workers)
    outcomes = [None] * workers
    databases = [db_api.Database(url) for _ in range(workers)]
    for db in databases:
        with db.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    def worker(i):
        barrier.wait()
        outcomes[i] = attempt(databases[i], i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for db in databases:
        db.dispose()
    return outcomes
