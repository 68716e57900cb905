"""The VM lock on PostgreSQL: of two workers racing for one VM, exactly one wins."""

import threading

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception


def _race(url, vm_id, workers=2):
    """Start ``workers`` threads, each with its own engine, at the same instant; return outcomes."""
    barrier = threading.Barrier(workers)
    outcomes = [None] * workers
    databases = [db_api.Database(url) for _ in range(workers)]
    for db in databases:  # connect before the race so only the lock statement races
        db_api.get_app_config(db)

    def worker(i):
        barrier.wait()
        try:
            db_api.lock_vm(databases[i], vm_id, owner="worker-%d" % i)
            outcomes[i] = "won"
        except exception.VMLocked as exc:
            outcomes[i] = str(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for db in databases:
        db.dispose()
    return outcomes


@pytest.mark.postgresql
def test_exactly_one_of_two_concurrent_lockers_wins(pg_db):
    for round_number in range(40):
        vm_id = "vm-race-%d" % round_number
        outcomes = _race(pg_db.url, vm_id)
        assert outcomes.count("won") == 1, outcomes
        loser = [o for o in outcomes if o != "won"][0]
        assert loser.startswith("VM is locked: %s" % vm_id)


@pytest.mark.postgresql
def test_exactly_one_of_eight_concurrent_lockers_wins_on_a_new_vm(pg_db):
    outcomes = _race(pg_db.url, "vm-race-many", workers=8)
    assert outcomes.count("won") == 1, outcomes
    state = db_api.get_vm_state(pg_db, "vm-race-many")
    assert state["locked"] is True
    assert state["lock_owner"].startswith("worker-")


@pytest.mark.postgresql
def test_released_lock_can_be_taken_again(pg_db):
    db_api.lock_vm(pg_db, "vm-1", owner="a")
    assert db_api.unlock_vm(pg_db, "vm-1", owner="a") is True
    db_api.lock_vm(pg_db, "vm-1", owner="b")
    assert db_api.get_vm_state(pg_db, "vm-1")["lock_owner"] == "b"
