"""The VM lock on PostgreSQL: of two workers racing for one VM, exactly one wins."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.functional.db import race


def _race(url, vm_id, workers=2):
    """Lock ``vm_id`` from ``workers`` threads at once; "won" or the VMLocked message each."""
    def attempt(db, i):
        try:
            db_api.lock_vm(db, vm_id, owner="worker-%d" % i)
            return "won"
        except exception.VMLocked as exc:
            return str(exc)
    return race.race(url, attempt, workers)


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
