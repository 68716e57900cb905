"""HA end to end on real Nova with the shipped defaults: kill a compute, everything runs elsewhere.

One deployment (see ``deployment``) for the module; the tests run in file order and each
leaves the region as the next expects: 5 computes in aggregate ``agg-ha``, 11 servers
(3 in an anti-affinity group). The operator sets only the business config an operator
must decide: KeyVRM enabled, the aggregate's marker HA, NOOP off, its storage shared.
"""

import time

import pytest

from keyvrm.drivers.cloud import openstack
from tests.e2e import deployment as e2e
from tests.nova import conftest as nova_helpers

AGGREGATE = "agg-ha"
# Kill -> every server of the host ACTIVE elsewhere: Nova sees the compute down after its
# service_down_time (60 s); the fast path acts within [ha] watch_interval of that.
RECOVERY_BUDGET_S = 75.0


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    nova_helpers.require_nova()
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e"), pg_databases())
    try:
        deployed.start()
        driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        hosts = deployed.cloud.endpoints["hosts"]
        nova_helpers.aggregate(driver, AGGREGATE, hosts)
        group = nova_helpers.server_group(driver, "spread", "anti-affinity")
        servers = {}
        for i, host in enumerate(hosts[:3]):
            servers[nova_helpers.boot(driver, "aa-%d" % i, host, group_id=group)] = host
        for i in range(8):
            host = hosts[i % 2]  # the first two computes carry most of the load
            servers[nova_helpers.boot(driver, "vm-%d" % i, host)] = host
        deployed.driver, deployed.group, deployed.servers = driver, group, servers
        yield deployed
    finally:
        deployed.stop()


def _server(region, server_id):
    return nova_helpers.server(region.driver, server_id)


def _on(region, host):
    return [s for s in region.servers if _server(region, s)["OS-EXT-SRV-ATTR:host"] == host]


def _hypervisor(region, host):
    return region.openstack("hypervisor", "show", host)


def _aggregate_events(region):
    return region.api("/events?aggregate=%s&kind=HA&limit=200" % AGGREGATE)["events"]


def _cycle_after(region, cycle_id, timeout_s, what):
    return region.wait(lambda: next((c for c in region.api("/cycles?limit=10")["cycles"]
                                     if c["id"] > cycle_id and c["status"] == "completed"), None),
                       timeout_s, what)


def _newest_cycle(region):
    return max([c["id"] for c in region.api("/cycles?limit=50")["cycles"]] or [0])


def test_ha_waits_until_the_operator_declares_the_storage(region):
    region.openstack("config", "set", "--enabled", "true")
    region.openstack("cycle", "run")
    _cycle_after(region, 0, 90, "no first cycle completed")  # it brings Nova's aggregates in
    shown = region.openstack("aggregate", "show", AGGREGATE)
    assert shown["storage_mode"] is None and shown["no_op_mode"] is True
    region.openstack("aggregate", "set", AGGREGATE, "--marker", "HA", "--no-noop")
    newest = _newest_cycle(region)
    region.openstack("cycle", "run")
    cycle = _cycle_after(region, newest, 90, "no cycle completed")
    assert "storage_undeclared" in (cycle["reason"] or ""), cycle


def test_a_nova_outage_is_insufficient_evidence_and_nothing_is_fenced(region):
    region.openstack("aggregate", "set", AGGREGATE, "--storage-mode", "shared")
    newest = _newest_cycle(region)
    region.cloud.fault(503)
    try:
        region.openstack("cycle", "run")
        cycle = _cycle_after(region, newest, 90, "no cycle completed during the Nova outage")
    finally:
        region.cloud.fault(None)
    assert cycle["reason_code"] == "sources_failed" and "nova failed" in cycle["reason"], cycle
    assert {h["state"] for h in region.openstack("hypervisor", "list")} == {"ok"}


def test_a_killed_compute_is_fenced_and_its_servers_run_elsewhere_with_shipped_defaults(region):
    victim = region.cloud.endpoints["hosts"][0]
    victims = _on(region, victim)
    assert len(victims) >= 4
    killed_at = region.kill_compute(victim)

    def all_active_elsewhere():
        states = [_server(region, s) for s in victims]
        return all(s["status"] == "ACTIVE" and s["OS-EXT-SRV-ATTR:host"] != victim for s in states)
    region.wait(all_active_elsewhere, 240, "the servers of the killed compute were not ACTIVE elsewhere")
    recovered_s = time.monotonic() - killed_at
    print("kill -> all %d servers ACTIVE elsewhere: %.1f s" % (len(victims), recovered_s))
    assert recovered_s <= RECOVERY_BUDGET_S, recovered_s

    state = region.wait(lambda: _in_state(_hypervisor(region, victim), "maintenance"), 60,
                        "the killed compute did not end in maintenance")
    assert state["fencing"] and any(step["fencer"] == "nova" and step["confirmed"] for step in state["fencing"])
    service = _service(region, victim)  # as Nova shows it now (the API's is as of the last snapshot)
    assert service["forced_down"] and service["status"] == "disabled", service
    assert service["disabled_reason"].startswith("KeyVRM"), service
    group_hosts = [_server(region, s)["OS-EXT-SRV-ATTR:host"] for s in region.servers
                   if _server(region, s)["name"].startswith("aa-")]
    assert len(set(group_hosts)) == 3, group_hosts  # anti-affinity kept
    evacuations = [r for r in region.api("/recommendations?limit=200")["recommendations"]
                   if r["action"] == "evacuate"]
    assert sorted(r["vm_id"] for r in evacuations) == sorted(victims)  # exactly one per server
    assert {r["status"] for r in evacuations} == {"succeeded"}
    region.victim, region.first_event = victim, state["event_id"]


def test_a_restored_host_is_back_in_nova_and_handled_again_when_it_dies_again(region):
    victim = region.victim
    region.revive_compute(victim)
    restored = region.openstack("hypervisor", "restore", victim)
    assert restored["state"] == "restoring"
    again = region.openstack("hypervisor", "restore", victim, check=False)
    assert again.returncode != 0 and "is restoring" in again.stderr

    region.openstack("cycle", "run")
    region.wait(lambda: _in_state(_hypervisor(region, victim), "ok"), 120,
                "the restored host did not return to service")
    service = region.wait(lambda: _up_and_enabled(_service(region, victim)), 60,
                          "Nova does not show the restored compute up and enabled")
    assert service["disabled_reason"] is None

    newcomer = nova_helpers.boot(region.driver, "after-restore", victim)
    region.servers[newcomer] = victim
    region.kill_compute(victim)
    region.wait(lambda: _active_off(_server(region, newcomer), victim), 240,
                "the server on the re-killed host was not evacuated")
    state = _hypervisor(region, victim)
    assert state["state"] in ("evacuating", "maintenance") and state["event_id"] != region.first_event


def _service(region, host):
    service = region.driver.get_service(host)
    return {"state": service.state, "status": service.status, "forced_down": service.forced_down,
            "disabled_reason": service.disabled_reason}


def _up_and_enabled(service):
    return service if service["state"] == "up" and service["status"] == "enabled" \
        and not service["forced_down"] else None


def _in_state(hypervisor, state):
    return hypervisor if hypervisor["state"] == state else None


def _active_off(server, host):
    return server["status"] == "ACTIVE" and server["OS-EXT-SRV-ATTR:host"] != host
