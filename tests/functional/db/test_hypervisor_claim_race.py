"""The HA host claim on PostgreSQL: of HA runs racing for one condemned host, exactly one owns it."""

import pytest

from keyvrm.db import api as db_api
from tests.functional.db import race


def _race(url, host, event_ids):
    return race.race(url, lambda db, i: db_api.claim_hypervisor(db, host, event_ids[i]), len(event_ids))


@pytest.mark.postgresql
@pytest.mark.parametrize("existing_row", [False, True], ids=["first-row", "known-host"])
def test_exactly_one_of_concurrent_ha_runs_claims_a_host(pg_db, existing_row):
    for round_number in range(20):
        host = "cmp-race-%d" % round_number
        if existing_row:
            db_api.set_hypervisor_state(pg_db, host, "ok")
        events = [db_api.create_event(pg_db, "agg-1", "HA", "HA") for _ in range(4)]
        outcomes = _race(pg_db.url, host, events)
        assert outcomes.count(True) == 1, outcomes
        winner = events[outcomes.index(True)]
        assert db_api.get_hypervisor_state(pg_db, host)["event_id"] == winner
