"""Return to service on PostgreSQL: of concurrent restores of one fenced host exactly one is accepted."""

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from tests.functional.db import race

FENCING = [{"fencer": "ipmi", "confirmed": True, "message": "power off"}]


def _restore(db, host, i):
    try:
        return db_api.request_hypervisor_restore(db, host, "admin-%d" % i)["state"]
    except exception.Conflict:
        return "conflict"


@pytest.mark.postgresql
def test_exactly_one_of_concurrent_restores_is_accepted_and_audited_once(pg_db):
    for round_number in range(10):
        host = "cmp-restore-%d" % round_number
        db_api.set_hypervisor_state(pg_db, host, "fenced", fencing=FENCING)
        outcomes = race.race(pg_db.url, lambda db, i: _restore(db, host, i), 6)
        assert sorted(outcomes) == ["conflict"] * 5 + ["restoring"], outcomes
        audit = db_api.list_config_audit(pg_db, scope="hypervisor", target=host)
        assert [(a["old_value"], a["new_value"]) for a in audit] == [("fenced", "restoring")]


@pytest.mark.postgresql
def test_a_restore_racing_an_ha_claim_leaves_one_owner(pg_db):
    for round_number in range(10):
        host = "cmp-claim-%d" % round_number
        db_api.set_hypervisor_state(pg_db, host, "error", reason="evacuation failed")
        event_id = db_api.create_event(pg_db, "agg-1", "HA", "HA")

        def attempt(db, i):
            if i == 0:
                return _restore(db, host, i)
            return db_api.claim_hypervisor(db, host, event_id)
        outcomes = race.race(pg_db.url, attempt, 2)
        state = db_api.get_hypervisor_state(pg_db, host)["state"]
        # A claimed state (error, restoring) is never taken by another event's claim.
        assert outcomes[1] is False and outcomes[0] == "restoring" == state, (outcomes, state)
