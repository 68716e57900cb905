"""The VM lock on PostgreSQL: of two workers racing to begin a transition on one VM, exactly one wins."""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.functional.db import race

DEADLINE = datetime.datetime(2026, 12, 2, 16, 0, 0)


def _begin_migration(db, vm_id, owner):
    db_api.begin_vm_transition(db, vm_id, owner, "migrating", DEADLINE)


def _race(url, vm_id, workers=2):
    """Begin a migration of ``vm_id`` from ``workers`` threads at once; "won" or the VMLocked message each."""
    def attempt(db, i):
        try:
            _begin_migration(db, vm_id, "worker-%d" % i)
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
    _begin_migration(pg_db, "vm-1", "a")
    assert db_api.end_vm_transition(pg_db, "vm-1", owner="a") is True
    _begin_migration(pg_db, "vm-1", "b")
    assert db_api.get_vm_state(pg_db, "vm-1")["lock_owner"] == "b"
