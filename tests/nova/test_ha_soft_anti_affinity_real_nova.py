"""HA on real Nova keeps a soft-anti-affinity group apart (issue 32 item 3).

Four computes of their own form an HA aggregate. The one that dies carries a
soft-anti-affinity group of three and two other servers. Of the three live hosts, one
was just restored after a crash and is empty; the two others each carry a server of half
a compute's RAM. By free RAM alone (Nova's RAM weigher) the restored host takes all five
servers. The HA run -- Nova's fencer forcing the dead host's service down, both rounds
evacuating through Nova's API -- must put the three members on three hosts, as Nova's
``ServerGroupSoftAntiAffinityWeigher`` prefers, and spread the two other servers too
(each to the host that received the fewest so far): the three hosts receive 2, 2 and 1
servers, where before the spread rule both others went to the restored host (3, 1, 1).
Where the servers are is read from Nova (their host, and the evacuation records Nova
made for the targets KeyVRM forced: each ``done``, none refused).
"""

import collections
import time

from keyvrm.clock import WallClock
from keyvrm.db import api as db_api
from keyvrm.drivers.cloud import openstack
from keyvrm.executor.settings import ExecutorSettings
from keyvrm.fencing import factory
from keyvrm.fencing import nova as nova_fencer
from keyvrm.flows import ha
from keyvrm.flows import resources as flow_resources
from tests.nova import conftest as c

AGGREGATE = "agg-ha-soft"
TIMEOUTS_S = {"starting": 60, "stopping": 60, "suspending": 60, "resuming": 60,
              "creating": 60, "deleting": 60, "migrating": 60, "restoring": 60}
EXECUTOR = ExecutorSettings(poll_interval_s=0.2, retry_delay_s=1.0, lifecycle_timeouts_s=TIMEOUTS_S)


def _restore(fake_cloud, driver, host):
    """``host`` crashed and comes back: its compute restarted, its service no longer forced down.

    Returns a wait for the new compute's first report: until then (Nova's 5-s initial
    reporting delay) its service reads down once the last report before the crash is
    older than ``service_down_time`` (6 s here), and the executor would find the target down.
    """
    fake_cloud.stop_compute(host)
    driver.force_down_service(host)
    fake_cloud.start_compute(host)
    unforced_at = driver.force_down_service(host, False).updated_at
    return lambda: c.wait_for(lambda: driver.get_service(host).updated_at > unforced_at, timeout_s=15.0)


def _evacuations(driver, server_id):
    """Nova's evacuation records of ``server_id``: (status, source, dest).

    ``done`` once the target rebuilt the server; ``completed`` once the source's compute,
    back, has cleaned up after it.
    """
    records = c.nova(driver, "GET", "/os-migrations", "2.80",
                     params={"instance_uuid": server_id, "migration_type": "evacuation"})["migrations"]
    return [(r["status"], r["source_compute"], r["dest_compute"]) for r in records]


def test_ha_on_real_nova_spreads_a_soft_anti_affinity_group_and_the_other_vms_over_the_targets(
        sqlite_db, fake_cloud):
    dead, restored, half_a, half_b = fake_cloud.add_computes(4)
    driver = openstack.from_endpoints(fake_cloud.service_endpoints)
    reported = _restore(fake_cloud, driver, restored)  # its first report comes while the servers boot
    c.aggregate(driver, AGGREGATE, [dead, restored, half_a, half_b])
    half = c.nova(driver, "POST", "/flavors", "2.55", json={"flavor": {
        "name": "half-%s" % dead, "vcpus": 1, "ram": 4096, "disk": 1}})["flavor"]["id"]
    for host in (half_a, half_b):
        c.boot(driver, "soft-filler-%s" % host, host, flavor_id=half)
    group = c.server_group(driver, "soft-web", "soft-anti-affinity")
    members = [c.boot(driver, "soft-web-%d" % i, dead, group_id=group) for i in range(3)]
    others = [c.boot(driver, "soft-other-%d" % i, dead) for i in range(2)]
    reported()
    fake_cloud.stop_compute(dead)
    res = flow_resources.EngineResources(
        db=sqlite_db, cloud=driver, clock=WallClock(), dispatcher=flow_resources.Dispatcher(),
        fencers=lambda app: factory.Fencers(nova=nova_fencer.NovaFencer(driver)),
        conf=flow_resources.FlowSettings(executor=EXECUTOR))
    try:
        snapshot_id, event_id = c.ha_event(res, AGGREGATE)
        started = time.monotonic()
        fenced = ha.FenceHosts(res).execute(event_id, AGGREGATE, [dead])
        round1_ids = ha.PlanFirstRound(res).execute(event_id, AGGREGATE, snapshot_id, fenced)
        round1 = ha.Execute(res, 1).execute(round1_ids, AGGREGATE, snapshot_id)
        round2_ids = ha.PlanSecondRound(res).execute(event_id, AGGREGATE, fenced, round1)
        took_s = time.monotonic() - started
        evacuations = {vm: _evacuations(driver, vm) for vm in members + others}  # before the dead host is back
    finally:
        fake_cloud.start_compute(dead)
        driver.force_down_service(dead, False)
        driver.enable_service(dead)

    print("fence, plan and evacuate 5 servers through Nova: %.2f s" % took_s)
    assert fenced == [dead]
    assert sorted(round1.values()) == ["succeeded"] * 5 and round2_ids == []
    targets = {rec["vm_id"]: rec["target_host"]
               for rec in (db_api.get_recommendation(sqlite_db, rec_id) for rec_id in round1_ids)}
    servers = {vm: c.server(driver, vm) for vm in members + others}
    hosts = {vm: server["OS-EXT-SRV-ATTR:host"] for vm, server in servers.items()}
    assert {server["status"] for server in servers.values()} == {"ACTIVE"}
    print("members on %s, the others on %s" % ([hosts[vm] for vm in members], [hosts[vm] for vm in others]))
    # three hosts for the three members: the emptiest host, the restored one, did not take every server
    assert sorted(hosts[vm] for vm in members) == sorted([restored, half_a, half_b])
    # the other two spread as well: on two hosts, each target receiving 2, 2 and 1 servers
    assert len({hosts[vm] for vm in others}) == 2
    assert sorted(collections.Counter(hosts.values()).values()) == [1, 2, 2]
    # Nova accepted every target KeyVRM forced: one evacuation each, done, to that target
    assert evacuations == {vm: [("done", dead, targets[vm])] for vm in hosts}
    assert hosts == targets
