"""The real HAFlow survives SIGKILL at every task boundary, on PostgreSQL and the simulated region.

A host of an HA aggregate is dead. One engine process runs the cycle and is killed at the
first boundary (``ha_open_event`` before it runs); each restart resumes and is killed at
the next boundary, through every task's before and after; the last restart finishes.
The simulated region is pickled at every boundary (``ha_proc``), so the cloud keeps what
the killed process did. The result must equal an uninterrupted run: every VM of the dead
host evacuated exactly once (one Nova evacuation each), one recommendation per VM,
the same journal lines, the host in maintenance, the event completed.
"""

import collections
import multiprocessing
import os
import signal

import pytest

from keyvrm.db import api as db_api
from keyvrm.demo import embedded
from keyvrm.engine import persistence as engine_persistence
from keyvrm.flows import ha
from tests.functional.engine import ha_proc
from tests.unit.flows import regions

DEAD = "cmp-00001"
HA_TASKS = [t.name for t in ha.ha_tasks(None)]
HA_ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}
BOUNDARIES = [(t, w) for t in HA_TASKS for w in ("before", "after")]


def fresh_region(url, path):
    """The small scenario with DEAD down long enough to be detected; pickled to ``path``."""
    region = regions.small_region(regions.dies(DEAD, at="0m"))
    emb = embedded.EmbeddedRegion(region, url)
    emb.sync_aggregates()
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: HA_ON})
    emb.advance(180)
    ha_proc.save_region(region, path)
    emb.db.dispose()
    return sorted(vm.id for vm in region.hosts[DEAD].vms)


def run(url, path, mode, kill_at=None):
    if kill_at:
        os.environ["KEYVRM_TEST_KILL_AT"] = kill_at
    try:
        process = multiprocessing.get_context("fork").Process(target=ha_proc.main, args=([url, path, mode],))
        process.start()
    finally:
        os.environ.pop("KEYVRM_TEST_KILL_AT", None)
    process.join(120)
    if process.exitcode is None:
        process.kill()
        pytest.fail("engine did not finish within 120 s")
    return process.exitcode


def outcome(url, path, vms):
    """What the run left: per VM its host, evacuations, recommendations and journal; events; host state."""
    region = ha_proc.load_region(path)
    db = db_api.Database(url)
    try:
        evacuations = collections.Counter(m.server_id for m in region.migrations.values()
                                          if m.migration_type == "evacuation")
        recs = [r for r in db_api.list_recommendations(db) if r["action"] == "evacuate"]
        per_vm = {vm: dict(host_moved=region.vms[vm].host != DEAD, evacuations=evacuations[vm],
                           recs=sorted((r["status"], r["ha_round"]) for r in recs if r["vm_id"] == vm),
                           journal=sorted(op["kind"] for r in recs if r["vm_id"] == vm
                                          for op in db_api.list_operations(db, r["id"])))
                  for vm in vms}
        events = sorted((e["kind"], e["status"], e["state"], e["reason_code"]) for e in db_api.list_events(db))
        return per_vm, events, db_api.get_hypervisor_state(db, DEAD)["state"]
    finally:
        db.dispose()


@pytest.mark.slow
def test_ha_flow_killed_at_every_task_boundary_ends_as_an_uninterrupted_run(pg_databases, tmp_path):
    baseline_url, chain_url = pg_databases(), pg_databases()
    baseline_path, chain_path = str(tmp_path / "baseline.pkl"), str(tmp_path / "chain.pkl")
    vms = fresh_region(baseline_url, baseline_path)
    assert fresh_region(chain_url, chain_path) == vms and vms

    assert run(baseline_url, baseline_path, "cycle") == 0
    expected = outcome(baseline_url, baseline_path, vms)
    per_vm, events, host_state = expected
    assert all(v["host_moved"] and v["evacuations"] == 1 and v["recs"] == [("succeeded", 1)]
               for v in per_vm.values()), per_vm
    assert host_state == "maintenance"

    mode = "cycle"
    for task_name, when in BOUNDARIES:
        assert run(chain_url, chain_path, mode, kill_at="%s:%s" % (task_name, when)) == -signal.SIGKILL, \
            (task_name, when)
        mode = "resume"
    assert run(chain_url, chain_path, "resume") == 0
    assert outcome(chain_url, chain_path, vms) == expected
    persistence = engine_persistence.Persistence(chain_url)
    assert persistence.unfinished(engine_persistence.LOCAL) == []
    persistence.close()
