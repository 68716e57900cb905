"""Drains on PostgreSQL: of concurrent drains of one ok host exactly one is accepted, and audited once."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.functional.db import race
from tests.unit.api import seed


def _drain(db, host, i):
    try:
        return db_api.request_hypervisor_drain(db, host, "CHG-%d" % i, "admin-%d" % i)["state"]
    except exception.Conflict:
        return "conflict"


def _audited(db, host):
    return [(a["old_value"], a["new_value"]) for a in db_api.list_config_audit(db, scope="hypervisor", target=host)]


@pytest.mark.postgresql
def test_exactly_one_of_concurrent_drains_is_accepted_also_for_a_host_keyvrm_never_held(pg_db):
    seed.seed(pg_db)  # cmp-2: in the snapshot, no state row yet (the drains race to insert it)
    outcomes = race.race(pg_db.url, lambda db, i: _drain(db, "cmp-2", i), 6)
    assert sorted(outcomes) == ["conflict"] * 5 + ["draining"], outcomes
    assert _audited(pg_db, "cmp-2") == [("ok", "draining")]
    for round_number in range(5):
        host = "cmp-drain-%d" % round_number
        db_api.set_hypervisor_state(pg_db, host, "ok")
        outcomes = race.race(pg_db.url, lambda db, i: _drain(db, host, i), 6)
        assert sorted(outcomes) == ["conflict"] * 5 + ["draining"], outcomes
        assert _audited(pg_db, host) == [("ok", "draining")]
