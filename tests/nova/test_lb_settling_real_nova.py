"""LB after an operator's live migration through Nova's API: no plan from metrics that predate it (issue 32 item 4).

Four computes of their own form an LB aggregate. The operator live-migrates a VM from
``gave`` to ``took`` through Nova's API (not through KeyVRM: KeyVRM's database knows
nothing of it). The TSDB's 300-s averages, taken before that move, say ``took`` and ``hot``
are overloaded and ``gave`` is the coolest host; the fourth host is too warm to take a
VM. The LB run of the next cycle, from a snapshot taken right after the move, must leave
``took`` and ``gave`` alone -- ``took`` is not relieved, ``gave`` receives nothing although
it is the only host with room -- and its reasons must name both as settling. A run whose
snapshot is taken once the metrics window has passed since the move relieves both hot
hosts onto ``gave``.
"""

import time

from keyvrm.clock import WallClock
from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.drivers.metrics import base as metrics_base
from keyvrm.flows import harvest
from keyvrm.flows import lb
from keyvrm.flows import resources as flow_resources
from keyvrm.model import snapshot as m
from keyvrm.planning import reasons
from tests.nova import conftest as c

AGGREGATE = "agg-lb-settling"
WINDOW_S = 300.0
VM_CORES = 3.0  # each VM of a hot host: 30% of a 10-vCPU compute


class _WindowMetrics(metrics_base.MetricsDriver):
    """A TSDB whose averages over the last ``window_s`` are fixed: each host's CPU %, each VM's cores."""

    window_s = WINDOW_S

    def __init__(self, host_cpu_pct, vm_cores):
        self.host_cpu_pct, self.vm_cores = host_cpu_pct, vm_cores

    def host_metrics(self, hosts=None):
        return {host: m.HostMetrics(cpu_pct=pct, ram_pct=20.0, net_pct=1.0, interfaces_known=True)
                for host, pct in self.host_cpu_pct.items() if hosts is None or host in hosts}

    def vm_metrics(self, vm_ids=None):
        return {vm: m.VMMetrics(cpu_cores=cores, ram_mb=128.0, net_mbps=1.0)
                for vm, cores in self.vm_cores.items() if vm_ids is None or vm in vm_ids}

    def targets_up(self, hosts=None):
        return {host: True for host in self.host_cpu_pct if hosts is None or host in hosts}


class _LaterClock(WallClock):
    """The wall clock ``offset_s`` ahead: a later cycle without waiting for it."""

    def __init__(self, offset_s):
        self.offset_s = offset_s

    def time(self):
        return super().time() + self.offset_s


def _operator_live_migrates(driver, vm, target):
    """The operator's ``openstack server migrate --live-migration --host``: Nova's API, not KeyVRM."""
    c.nova(driver, "POST", "/servers/%s/action" % vm, "2.68",
           json={"os-migrateLive": {"host": target, "block_migration": "auto"}})
    return c.wait_for(lambda: [r for r in c.nova(driver, "GET", "/os-migrations", "2.80", params={
        "instance_uuid": vm, "migration_type": "live-migration"})["migrations"] if r["status"] == "completed"])


def _resources(db, driver, metrics, clock):
    return flow_resources.EngineResources(db=db, cloud=driver, clock=clock, dispatcher=flow_resources.Dispatcher(),
                                          fencers=None, metrics=metrics)


def _lb_run(db, driver, metrics, clock):
    """One cycle's LB run of the aggregate from a fresh snapshot: (its recommendations, its event)."""
    snapshot_id = harvest.Harvest(_resources(db, driver, metrics, clock)).execute()
    cycle_id = db_api.start_cycle(db)
    rec_ids = lb.PlanBalancing(_resources(db, driver, metrics, clock)).execute(True, cycle_id, AGGREGATE, snapshot_id)
    recs = [db_api.get_recommendation(db, rec_id) for rec_id in rec_ids]
    [event] = db_api.list_events(db, aggregate_name=AGGREGATE, kind="LB", cycle_id=cycle_id)
    return recs, event


def test_lb_touches_no_host_an_operators_live_migration_moved_until_the_metrics_window_passed(
        sqlite_db, fake_cloud, driver):
    gave, took, hot, warm = fake_cloud.add_computes(4)
    c.aggregate(driver, AGGREGATE, [gave, took, hot, warm])
    flavor = c.nova(driver, "POST", "/flavors", "2.55", json={"flavor": {
        "name": "lb-settling-%s" % gave, "vcpus": 4, "ram": 256, "disk": 1}})["flavor"]["id"]
    vms = {name: c.boot(driver, name, host, flavor_id=flavor) for name, host in (
        ("moved", gave), ("took-1", took), ("took-2", took), ("hot-1", hot), ("hot-2", hot), ("warm-1", warm))}
    metrics = _WindowMetrics({gave: 10.0, took: 95.0, hot: 95.0, warm: 70.0},
                             {vm: VM_CORES for vm in vms.values()})
    harvest.Harvest(_resources(sqlite_db, driver, metrics, WallClock())).execute()  # KeyVRM learns the aggregate
    db_api.update_aggregate_config(sqlite_db, AGGREGATE, {"marker": "LB", "no_op_mode": False}, "test")

    [record] = _operator_live_migrates(driver, vms["moved"], took)
    assert (record["source_compute"], record["dest_compute"]) == (gave, took)
    assert c.host_of(driver, vms["moved"]) == took
    assert db_api.recent_moved_hosts(sqlite_db, models.as_stored_time(0)) == {}  # KeyVRM made no move
    started = time.monotonic()
    recs, found = _lb_run(sqlite_db, driver, metrics, WallClock())
    settling_run_s = time.monotonic() - started

    assert recs == [] and found["reason_code"] == reasons.LB_NO_TARGET  # gave is the only host with room
    count, settling = [r for r in found["reasons"]["entries"] if r["code"] == reasons.METRICS_SETTLING]
    assert count["host"] is None and count["details"]["hypervisors"] == 1
    assert settling["host"] == took and settling["details"]["window_s"] == WINDOW_S
    assert 0 <= settling["details"]["moved_s_before"] < 30  # timed by Nova's record of the operator's move
    assert settling["message"].startswith("%s: a move " % took)
    [stuck] = db_api.get_event_summary(sqlite_db, found["id"])["no_target"]
    assert stuck["source_host"] == hot
    assert {r["host"]: r["check"] for r in stuck["rejected_hosts"]}[gave] == reasons.METRICS_SETTLING

    started = time.monotonic()
    later, _ = _lb_run(sqlite_db, driver, metrics, _LaterClock(WINDOW_S + 1))
    settled_run_s = time.monotonic() - started
    print("LB run after the operator's move: %.2f s; after the window: %.2f s" % (settling_run_s, settled_run_s))
    assert {rec["source_host"] for rec in later} == {took, hot}
    assert {rec["target_host"] for rec in later} == {gave}
