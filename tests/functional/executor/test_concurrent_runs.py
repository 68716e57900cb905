"""Two executors on the same VM at once, on PostgreSQL, over one simulated region: one acts."""

import threading

import pytest

from keyvrm.db import api as db_api
from keyvrm.executor import runner
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from tests.unit.executor import helpers as h

ROUNDS = 5


def _race(pg_db, region, rec_ids):
    """Run each recommendation in its own thread (own DB connection pool), started together."""
    cloud = SimCloudDriver(region)
    clock = h.RegionClock(region)
    barrier = threading.Barrier(len(rec_ids))
    results = [None] * len(rec_ids)

    def executor(i):
        db = db_api.Database(pg_db.url)
        try:
            barrier.wait()
            results[i] = runner.run_recommendation(db, cloud, rec_ids[i], clock=clock,
                                                   settings=h.SETTINGS)
        finally:
            db.dispose()

    threads = [threading.Thread(target=executor, args=(i,)) for i in range(len(rec_ids))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.postgresql
def test_two_recommendations_for_one_vm_exactly_one_migrates_the_other_is_cancelled(pg_db):
    for _ in range(ROUNDS):
        region = h.small_region()
        vm = h.vm_on(region, h.SOURCE)
        _, first = h.recommendation(pg_db, "live_migrate", vm.id, target=h.TARGET)
        _, second = h.recommendation(pg_db, "live_migrate", vm.id, target=h.OTHER)
        results = _race(pg_db, region, [first, second])
        assert sorted(results) == ["cancelled", "succeeded"]
        assert len(region.migrations) == 1
        loser = [first, second][results.index("cancelled")]
        reason = db_api.get_recommendation(pg_db, loser)["reason"]
        # the loser either met the winner's lock or, when the winner was already done,
        # found the VM gone from the source; either way it did not act
        assert (reason.startswith("VM is locked: %s (held by executor:" % vm.id)
                or reason.startswith("VM is on ")), reason
        assert vm.host == (h.TARGET if results[0] == "succeeded" else h.OTHER)
        assert not db_api.get_vm_state(pg_db, vm.id)["locked"]


@pytest.mark.postgresql
def test_one_recommendation_run_twice_at_once_starts_one_migration(pg_db):
    for _ in range(ROUNDS):
        region = h.small_region()
        vm = h.vm_on(region, h.SOURCE)
        _, rec_id = h.recommendation(pg_db, "live_migrate", vm.id)
        _race(pg_db, region, [rec_id, rec_id])
        assert len(region.migrations) == 1 and vm.host == h.TARGET
        assert h.kinds(pg_db, rec_id).count("execute") == 1
        assert db_api.get_recommendation(pg_db, rec_id)["status"] == "succeeded"
        assert not db_api.get_vm_state(pg_db, vm.id)["locked"]
