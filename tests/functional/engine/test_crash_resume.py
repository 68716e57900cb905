"""A SIGKILLed engine resumes its flows: killed at every task boundary of an HA flow in turn.

The engine runs as a subprocess on PostgreSQL. The cloud is a file-backed ledger of
moves (fsynced per evacuation), so what the killed process did to the "cloud" survives
it, as a real cloud's state would; each boundary gets its own aggregate and VMs in one
database. After the restart the flow has completed, each VM was evacuated exactly once
and the event, recommendations and journal lines exist exactly once.
"""

import json
import multiprocessing
import os
import signal
import time

import pytest

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.engine import persistence as engine_persistence
from tests.functional.engine import engine_proc
from tests.functional.engine import miniflows

BOUNDARIES = [(t, w) for t in miniflows.MINI_HA_TASKS for w in ("before", "after")]


def run_engine(url, ledger, placement, kill_at=None, timeout_s=60):
    """Fork an engine process (own DB connections, nothing shared) and wait; its exit code."""
    if kill_at:
        os.environ["KEYVRM_TEST_KILL_AT"] = kill_at
    try:
        process = multiprocessing.get_context("fork").Process(target=engine_proc.main, args=(
            ["--db", url, "--ledger", ledger, "--placement", json.dumps(placement), "--exit-when-idle"],))
        process.start()
    finally:
        os.environ.pop("KEYVRM_TEST_KILL_AT", None)
    process.join(timeout_s)
    if process.exitcode is None:
        process.kill()
        pytest.fail("engine did not finish within %s s" % timeout_s)
    return process.exitcode


@pytest.fixture(scope="module")
def pg_engine_db(pg_databases):
    url = pg_databases()
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    persistence = engine_persistence.Persistence(url)
    persistence.upgrade()
    yield url, db, persistence
    persistence.close()
    db.dispose()


@pytest.mark.slow
def test_killed_engine_resumes_ha_flow_at_every_task_boundary(pg_engine_db, tmp_path):
    url, db, persistence = pg_engine_db
    ledger = str(tmp_path / "cloud.jsonl")
    cloud = miniflows.LedgerCloud(ledger)
    started = time.monotonic()
    for index, (task_name, when) in enumerate(BOUNDARIES):
        aggregate, vms = "agg-%d" % index, ["vm-%d-a" % index, "vm-%d-b" % index]
        placement = {vm: "dead-%d" % index for vm in vms}
        persistence.create("mini_ha", {"aggregate": aggregate, "host": "dead-%d" % index,
                                       "target": "spare-%d" % index, "vm_ids": vms}, engine_persistence.LOCAL)

        assert run_engine(url, ledger, placement, kill_at="%s:%s" % (task_name, when)) == -signal.SIGKILL
        assert run_engine(url, ledger, placement) == 0, (task_name, when)

        events = db_api.page_events(db, limit=10, aggregate=aggregate)
        assert [(e["status"], e["state"]) for e in events] == [("completed", "healthy")], (task_name, when)
        recs = db_api.list_recommendations(db, event_id=events[0]["id"])
        assert sorted(r["vm_id"] for r in recs) == vms
        assert all(r["status"] == "succeeded" for r in recs)
        for rec in recs:
            assert [op["kind"] for op in db_api.list_operations(db, rec["id"])] == ["start", "execute", "success"]
        moves = [vm for vm, _ in cloud.moves() if vm in vms]
        assert sorted(moves) == vms, (task_name, when, moves)
    assert persistence.unfinished(engine_persistence.LOCAL) == []
    print("crash/resume over %d boundaries: %.1f s" % (len(BOUNDARIES), time.monotonic() - started))
