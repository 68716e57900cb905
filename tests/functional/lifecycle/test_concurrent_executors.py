"""Two executors starting an action on the same VM at once, on PostgreSQL: exactly one acts."""

import datetime

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.lifecycle import tracker
from tests.functional.db import race

TIMEOUTS = {"migrating": 6 * 3600, "stopping": 1800}


@pytest.mark.postgresql
def test_only_one_of_two_executors_begins_the_evacuation(pg_db):
    now = datetime.datetime(2026, 12, 2, 10, 0, 0)
    for round_number in range(20):
        vm_id = "vm-exec-%d" % round_number

        def executor(db, i):
            try:
                tracker.begin(db, vm_id, "evacuate", "executor-%d" % i, now, TIMEOUTS, desired_host="target")
                return True
            except exception.VMLocked:
                return False

        acted = [i for i, won in enumerate(race.race(pg_db.url, executor, 2)) if won]
        assert len(acted) == 1
        state = db_api.get_vm_state(pg_db, vm_id)
        assert state["lock_owner"] == "executor-%d" % acted[0]
        assert state["transitional_state"] == "migrating"
