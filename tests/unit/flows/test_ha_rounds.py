"""HA round 2: a round-1 evacuation whose target was lost before Nova was asked, or that Nova's
scheduler refused, is re-planned onto another target."""

from keyvrm.db import api as db_api
from keyvrm.flows import ha
from tests.unit.flows import regions

ON = {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"}


def test_a_round1_evacuation_lost_because_its_target_died_cancelled_or_failed_is_replanned(make_region):
    # two hosts die, and cmp-00001 30 s later: the first run condemns the two and (its snapshot
    # still showing cmp-00001 up with a fresh heartbeat) sends their VMs to cmp-00001, which the
    # executor then finds down (a host whose heartbeat is already stale is never a target). Whether
    # the executor sees it down before it asks Nova (cancelled) or Nova's evacuation then fails on
    # it (failed, target_down) depends on the executor's threads against the simulated clock: a
    # loaded machine gives either, and both are lost to the dead target and re-planned alike
    emb = make_region(regions.dies("cmp-00001", at="1m30s")
                      + "".join(regions.dies(h) for h in ("cmp-00002", "cmp-00003")))
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: ON})
    dead = {vm.id for h in ("cmp-00001", "cmp-00002", "cmp-00003") for vm in emb.region.hosts[h].vms}
    for _ in range(5):
        assert emb.run_cycle(120)
        emb.advance(60)
    recs = db_api.list_recommendations(emb.db)
    lost = [r for r in recs if r["ha_round"] == 1 and r["status"] in ("cancelled", "failed")]
    assert lost and all(r["target_host"] == "cmp-00001" for r in lost)
    assert all(r["reason"].startswith("target cmp-00001 ") if r["status"] == "cancelled"
               else r["reason"].startswith("target_down ") for r in lost)
    again = {r["vm_id"] for r in recs if r["ha_round"] == 2 and r["status"] == "succeeded"}
    assert again == {r["vm_id"] for r in lost}
    assert all(emb.region.vms[vm].host not in ("cmp-00001", "cmp-00002", "cmp-00003") for vm in dead)
    assert {db_api.get_hypervisor_state(emb.db, h)["state"]
            for h in ("cmp-00001", "cmp-00002", "cmp-00003")} == {"maintenance"}


def test_a_target_nova_s_scheduler_refuses_is_left_at_once_and_the_vm_re_planned_onto_another(make_region):
    # Nova refuses the first evacuation (NoValidHost) although its target looks up, enabled and roomy to
    # every API: that recommendation fails at its first attempt, and round 2 sends the VM elsewhere
    emb = make_region(regions.dies("cmp-00001") + regions.scheduler_refuses())
    emb.configure(app={"enabled": True}, aggregates={regions.HA_AGG: ON})
    dead = {vm.id for vm in emb.region.hosts["cmp-00001"].vms}
    for _ in range(4):
        assert emb.run_cycle(120)
        emb.advance(60)
    recs = db_api.list_recommendations(emb.db)
    [refused] = [r for r in recs if r["status"] == "failed"]
    assert refused["ha_round"] == 1 and refused["attempts"] == 1
    assert "refused the target %s" % refused["target_host"] in refused["reason"]
    ops = db_api.list_operations(emb.db, refused["id"])
    assert [op["kind"] for op in ops] == ["start", "prepare", "execute", "error"]
    assert ops[-1]["error"].endswith("Nova's fault: No valid host was found.")
    [again] = [r for r in recs if r["ha_round"] == 2]
    assert again["vm_id"] == refused["vm_id"] and again["status"] == "succeeded"
    assert again["target_host"] not in (refused["target_host"], "cmp-00001")
    asked = [(m.server_id, m.dest_host) for m in emb.region.migrations.values()]
    assert asked.count((refused["vm_id"], refused["target_host"])) == 1
    vm = emb.region.vms[refused["vm_id"]]
    assert (vm.host, vm.status) == (again["target_host"], "ACTIVE")  # Nova rebuilds an ERROR server ACTIVE
    assert all(emb.region.vms[v].host != "cmp-00001" for v in dead)
    assert db_api.get_hypervisor_state(emb.db, "cmp-00001")["state"] == "maintenance"


def test_only_a_cancel_for_a_lost_target_counts_as_lost():
    rec = {"status": "cancelled", "target_host": "cmp-2", "reason": "target cmp-2 compute service is down"}
    assert ha._target_lost(rec)
    assert not ha._target_lost(dict(rec, reason="cancelled by admin"))
    assert not ha._target_lost(dict(rec, reason="VM is busy (task_state migrating)"))
    assert not ha._target_lost(dict(rec, status="failed"))
