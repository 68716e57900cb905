"""Two executors starting an action on the same VM at once, on PostgreSQL: exactly one acts."""

import datetime
import threading

import pytest

from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.lifecycle import tracker

TIMEOUTS = {"migrating": 6 * 3600, "stopping": 1800}


@pytest.mark.postgresql
def test_only_one_of_two_executors_begins_the_evacuation(pg_db):
    now = datetime.datetime(2026, 12, 2, 10, 0, 0)
    for round_number in range(20):
        vm_id = "vm-exec-%d" % round_number
        databases = [db_api.Database(pg_db.url) for _ in range(2)]
        for db in databases:
            db_api.get_app_config(db)
        barrier = threading.Barrier(2)
        acted = []

        def executor(i):
            barrier.wait()
            try:
                tracker.begin(databases[i], vm_id, "evacuate", "executor-%d" % i, now, TIMEOUTS,
                              desired_host="target")
                acted.append(i)
            except exception.VMLocked:
                pass

        threads = [threading.Thread(target=executor, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for db in databases:
            db.dispose()
        assert len(acted) == 1
        state = db_api.get_vm_state(pg_db, vm_id)
        assert state["lock_owner"] == "executor-%d" % acted[0]
        assert state["transitional_state"] == "migrating"
