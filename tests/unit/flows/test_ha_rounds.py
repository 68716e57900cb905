"""HA round 2: a round-1 evacuation whose target was lost before Nova was asked is re-planned."""

from keyvrm.db import api as db_api
from keyvrm.flows import ha
from tests.unit.flows import regions

ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}


def test_a_round1_evacuation_cancelled_because_its_target_died_is_replanned(make_region):
    # two hosts die, and cmp-00001 30 s later: the first run condemns the two and (its snapshot
    # still showing cmp-00001 up with a fresh heartbeat) sends their VMs to cmp-00001, which the
    # executor then finds down (a host whose heartbeat is already stale is never a target)
    emb = make_region(regions.dies("cmp-00001", at="1m30s")
                      + "".join(regions.dies(h) for h in ("cmp-00002", "cmp-00003")))
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: ON})
    dead = {vm.id for h in ("cmp-00001", "cmp-00002", "cmp-00003") for vm in emb.region.hosts[h].vms}
    for _ in range(5):
        assert emb.run_cycle(120)
        emb.advance(60)
    recs = db_api.list_recommendations(emb.db)
    lost = [r for r in recs if r["status"] == "cancelled"]
    assert lost and all(r["reason"].startswith("target cmp-00001 ") for r in lost)
    again = {r["vm_id"] for r in recs if r["ha_round"] == 2 and r["status"] == "succeeded"}
    assert again == {r["vm_id"] for r in lost}
    assert all(emb.region.vms[vm].host not in ("cmp-00001", "cmp-00002", "cmp-00003") for vm in dead)
    assert {db_api.get_hypervisor_state(emb.db, h)["state"]
            for h in ("cmp-00001", "cmp-00002", "cmp-00003")} == {"maintenance"}


def test_only_a_cancel_for_a_lost_target_counts_as_lost():
    rec = {"status": "cancelled", "target_host": "cmp-2", "reason": "target cmp-2 compute service is down"}
    assert ha._target_lost(rec)
    assert not ha._target_lost(dict(rec, reason="cancelled by admin"))
    assert not ha._target_lost(dict(rec, reason="VM is busy (task_state migrating)"))
    assert not ha._target_lost(dict(rec, status="failed"))
