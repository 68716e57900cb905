"""The failover prediction against real Nova: the servers a host would leave behind are the ones Nova leaves.

One deployment for the module (see ``deployment``), tests in file order. Four computes in
the HA aggregate ``agg-ha`` (storage shared), filled against the RAM Placement reports for
them (``(total - reserved) x allocation_ratio``, the same on every compute; vCPU and disk
never bind): compute000 holds four ``victim`` servers of a quarter of it each, full;
compute001-003 hold two ``filler`` servers each, which leave each of them room for one victim
and not two. If compute000 dies, three of its four servers fit (one per survivor) and one is
left: the RAM the survivors have free adds up to more than the four need, but no host has room
for two. If a filler's host dies, its two fillers fit on the other two fillers' hosts.

The analysis must say so before anything fails (tolerance 0 against the reserve of 1, one
victim without a target, refused by each survivor for its RAM), and after compute000 is
killed Nova must show exactly that: the others ACTIVE on the survivors, one each, and the
predicted one still on the dead host, never evacuated; asked to evacuate it to any host,
Nova's own scheduler finds none.

Nova's timers are shortened (``service_down_time`` 10 s, ``report_interval`` 2 s): what
is checked here is where the servers end up, not how fast (``test_ha_real_cloud`` keeps
Nova's defaults for that).
"""

import time

import pytest

from keyvrm.drivers.cloud import openstack
from keyvrm.model import states
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.nova import conftest as nova_helpers

AGGREGATE = "agg-ha"
NOVA_TIMERS = (10, 2)  # service_down_time, report_interval (s)
VICTIMS = 4  # servers on the host that dies, each a quarter of a compute's RAM
FILLERS_PER_HOST = 2
# Kill -> HA event completed: Nova's verdict (<= 10 s), the heartbeat stale (10 s), the fast
# path's look (2 s), fencing and three evacuations; room for CI's parallel load.
SETTLED_BUDGET_S = 110.0


def _ram_mb(driver, host) -> tuple:
    """(usable, used) MEMORY_MB of ``host`` as Placement reports them; usable = (total - reserved) x ratio."""
    [provider] = nova_helpers.placement(driver, "/resource_providers?name=%s" % host)["resource_providers"]
    path = "/resource_providers/%s/" % provider["uuid"]
    memory = nova_helpers.placement(driver, path + "inventories")["inventories"]["MEMORY_MB"]
    used = nova_helpers.placement(driver, path + "usages")["usages"].get("MEMORY_MB", 0)
    return int((memory["total"] - memory["reserved"]) * memory["allocation_ratio"]), used


def _free_ram_mb(driver, host) -> int:
    usable, used = _ram_mb(driver, host)
    return usable - used


def _flavor_sizes_mb(usable_mb) -> tuple:
    """(victim, filler) RAM in MB for computes of ``usable_mb``: see the module docstring.

    Two fillers leave ``victim`` x 1.5 free: room for one victim, not two; a filler fits in
    that room, so a filler's host dying leaves nothing behind.
    """
    victim = usable_mb // VICTIMS
    filler = (usable_mb - victim * 3 // 2) // FILLERS_PER_HOST
    free = usable_mb - FILLERS_PER_HOST * filler
    assert victim <= free < 2 * victim and filler <= free, (usable_mb, victim, filler)
    assert usable_mb - VICTIMS * victim < min(victim, filler), (usable_mb, victim)  # compute000 has no room
    return victim, filler


def _flavor(driver, name, ram_mb):
    body = {"flavor": {"name": name, "ram": ram_mb, "vcpus": 1, "disk": 1}}
    return nova_helpers.nova(driver, "POST", "/flavors", "2.55", json=body)["flavor"]["id"]


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    """The filled region under HA (KeyVRM enabled, the aggregate marked HA, NOOP off, storage shared)."""
    nova_helpers.require_nova()
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e-failover"), pg_databases(), computes=4,
                              nova_timers=NOVA_TIMERS)
    try:
        deployed.start()
        driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        hosts = deployed.cloud.endpoints["hosts"]
        nova_helpers.aggregate(driver, AGGREGATE, hosts)
        [usable_mb] = {_ram_mb(driver, host)[0] for host in hosts}  # the same on every compute
        victim_mb, filler_mb = _flavor_sizes_mb(usable_mb)
        victim_flavor, filler_flavor = _flavor(driver, "victim", victim_mb), _flavor(driver, "filler", filler_mb)
        servers = {nova_helpers.boot(driver, "victim-%d" % i, hosts[0], flavor_id=victim_flavor): hosts[0]
                   for i in range(VICTIMS)}
        for host in hosts[1:]:
            servers.update({nova_helpers.boot(driver, "filler-%s-%d" % (host, i), host, flavor_id=filler_flavor): host
                            for i in range(FILLERS_PER_HOST)})
        metrics_feeder.feed(deployed.tsdb_url, {h: (20.0, 30.0, 5.0) for h in hosts},
                            {s: (0.2, 256.0, 1.0) for s in servers})
        deployed.openstack("config", "set", "--enabled", "true")
        deployed.openstack("cycle", "run")  # the first enabled cycle brings Nova's aggregates in
        deployed.wait(lambda: any(a["name"] == AGGREGATE for a in deployed.api("/aggregates")["aggregates"]), 90,
                      "the aggregate did not appear")
        deployed.openstack("aggregate", "set", AGGREGATE, "--marker", "HA", "--no-noop", "--storage-mode", "shared")
        deployed.driver, deployed.hosts, deployed.servers = driver, hosts, servers
        deployed.victim_mb = victim_mb
        yield deployed
    finally:
        deployed.stop()


def _handled(region, host):
    """``host``'s hypervisor record once HA is done with it and its event has completed, else None."""
    hypervisor = region.api("/hypervisors/%s" % host)["hypervisor"]
    if hypervisor["state"] not in ("maintenance", "error") or hypervisor["event_id"] is None:
        return None
    event = region.api("/events/%s" % hypervisor["event_id"], "1.4")["event"]
    return (hypervisor, event) if event["status"] == states.EventStatus.COMPLETED else None


def _in_error(region, server_id):
    server = nova_helpers.server(region.driver, server_id)
    return server if server["status"] == "ERROR" else None


def _evacuations(region, server_id):
    migrations = nova_helpers.nova(region.driver, "GET", "/os-migrations?instance_uuid=%s" % server_id,
                                   "2.80")["migrations"]
    return [m for m in migrations if m["migration_type"] == "evacuation"]


def test_a_cycle_predicts_which_servers_of_the_full_host_would_find_no_target(region):
    victim, survivors = region.hosts[0], region.hosts[1:]
    newest = region.newest_cycle()
    region.openstack("cycle", "run")
    region.cycle_after(newest, 90, "no cycle completed with the aggregate under HA")

    aggregate = region.api("/aggregates/%s" % AGGREGATE, "1.4")["aggregate"]
    assert (aggregate["failover_short"], aggregate["failover_tolerance"]) == (True, 0), aggregate
    [ha_outcome] = [o for o in aggregate["latest_outcome"]["outcomes"] if o["kind"] == "HA"]
    assert ha_outcome["reasons"][0]["code"] == "insufficient_failover_capacity", ha_outcome

    failover = region.api("/aggregates/%s/failover" % AGGREGATE, "1.4")["failover"]
    assert (failover["tolerance"], failover["reserve"], failover["below_reserve"]) == (0, 1, True), failover
    [at_risk] = failover["at_risk"]  # a filler's host dying leaves nothing behind
    assert at_risk["hosts"] == [victim], failover
    [left] = at_risk["vms_without_target"]  # exactly one of the four: the survivors have room for one each
    assert region.servers[left["vm_id"]] == victim and left["source_host"] == victim, left
    assert left["code"] == "ram_depleted", left  # RAM binds, not vCPUs or disk ...
    refused = {entry["host"]: entry["check"] for entry in left["rejected_hosts"]}
    assert refused == dict.fromkeys(survivors, "ram_depleted"), left  # ... on every survivor
    print("predicted: %s left on %s (%s); its refusals %s"
          % (left["vm_id"], victim, left["message"], sorted(refused.items())))
    region.predicted_left = {left["vm_id"]}


def test_nova_leaves_on_the_dead_host_exactly_the_servers_predicted_without_a_target(region):
    victim, survivors = region.hosts[0], region.hosts[1:]
    on_victim = {s for s, h in region.servers.items() if h == victim}
    left = region.predicted_left
    placed = on_victim - left
    killed_at = region.kill_compute(victim)
    hypervisor, event = region.wait(lambda: _handled(region, victim), SETTLED_BUDGET_S,
                                    "HA did not finish with the killed host")
    print("kill -> HA event %s completed (%s), host %s: %.1f s"
          % (event["id"], event["state"], hypervisor["state"], time.monotonic() - killed_at))
    assert {entry["vm_id"] for entry in event["no_target"]} == left, event
    assert hypervisor["state"] == "error", hypervisor  # a server stayed on it

    # Nova's own view: the placed servers ACTIVE on the survivors, one each (each had room for one) ...
    shown = {s: nova_helpers.server(region.driver, s) for s in on_victim}
    assert {s for s in on_victim if shown[s]["OS-EXT-SRV-ATTR:host"] == victim} == left, shown
    assert {s: shown[s]["status"] for s in placed} == dict.fromkeys(placed, "ACTIVE"), shown
    assert sorted(shown[s]["OS-EXT-SRV-ATTR:host"] for s in placed) == survivors, shown
    for server_id in placed:
        assert [(m["source_compute"], m["status"]) for m in _evacuations(region, server_id)] == [
            (victim, "done")], server_id
    assert not any(_evacuations(region, server_id) for server_id in left)  # ... the others never evacuated
    free_mb = {host: _free_ram_mb(region.driver, host) for host in survivors}
    assert max(free_mb.values()) < region.victim_mb, free_mb  # and Placement has room for none of them

    # Nova's scheduler, asked to evacuate them anywhere, agrees: no valid host
    for server_id in left:
        nova_helpers.nova(region.driver, "POST", "/servers/%s/action" % server_id, "2.68", json={"evacuate": {}})
    for server_id in left:
        failed = region.wait(lambda: _in_error(region, server_id), 60,
                             "Nova's evacuation of %s did not fail" % server_id)
        print("Nova on %s: %s" % (server_id, failed["fault"]["message"]))
        assert "No valid host" in failed["fault"]["message"], failed["fault"]
        assert failed["OS-EXT-SRV-ATTR:host"] == victim, failed
        assert [m["status"] for m in _evacuations(region, server_id)] == ["error"], server_id
