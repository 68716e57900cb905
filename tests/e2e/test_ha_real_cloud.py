"""KeyVRM end to end on real Nova with the shipped defaults (see ``deployment``).

One deployment for the module; the tests run in file order and each leaves the region
as the next expects. Eight computes: ``agg-ha`` = compute000-005 with 12 servers (3 in an
anti-affinity group on compute000-002, 8 on compute000-001, one marked
``ha_no_evacuate`` on compute002), ``agg-lb`` = compute006-007 with 4 servers on the
first, which the TSDB shows saturated. Every server boots from the image Nova's Glance
fixture marks ``architecture=x86_64``, image-backed (no volumes). The operator sets only
the business config an operator must decide: KeyVRM enabled, each aggregate's marker,
NOOP off, the HA aggregate's storage shared.
"""

import signal
import time

import pytest

from keyvrm.drivers.cloud import openstack
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.nova import conftest as nova_helpers

HA_AGGREGATE, LB_AGGREGATE = "agg-ha", "agg-lb"
# Kill -> every server of the host ACTIVE elsewhere: Nova sees the compute down 50-60 s after
# the kill (service_down_time 60 s, a report every 10 s); the fast path acts within [ha]
# watch_interval of that. The benchmark measures it (median 64.5 s); this bound leaves CI's
# parallel load room (70.9 s seen at load 16-22) and still fails a recovery that waits for a
# whole cycle (60 s more).
RECOVERY_BUDGET_S = 90.0
UNFINISHED_EVENT = ("created", "generating", "generated", "executing")


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    nova_helpers.require_nova()
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e"), pg_databases(), computes=8)
    try:
        deployed.start()
        driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        hosts = deployed.cloud.endpoints["hosts"]
        nova_helpers.aggregate(driver, HA_AGGREGATE, hosts[:6])
        nova_helpers.aggregate(driver, LB_AGGREGATE, hosts[6:])
        group = nova_helpers.server_group(driver, "spread", "anti-affinity")
        servers = {}
        for i, host in enumerate(hosts[:3]):
            servers[nova_helpers.boot(driver, "aa-%d" % i, host, group_id=group)] = host
        for i in range(8):
            host = hosts[i % 2]  # the first two computes carry most of the load
            servers[nova_helpers.boot(driver, "vm-%d" % i, host)] = host
        deployed.no_evac = nova_helpers.boot(driver, "pinned", hosts[2], metadata={"ha_no_evacuate": "true"})
        deployed.lb_servers = [nova_helpers.boot(driver, "hot-%d" % i, hosts[6]) for i in range(4)]
        loads = {h: (20.0, 30.0, 5.0) for h in hosts[:6]}
        loads.update({hosts[6]: (100.0, 95.0, 60.0), hosts[7]: (10.0, 20.0, 5.0)})
        vm_loads = {s: (0.2, 256.0, 1.0) for s in list(servers) + [deployed.no_evac]}
        vm_loads.update({s: (0.9, 400.0, 10.0) for s in deployed.lb_servers})
        metrics_feeder.feed(deployed.tsdb_url, loads, vm_loads)
        deployed.driver, deployed.hosts, deployed.servers = driver, hosts, servers
        yield deployed
    finally:
        deployed.stop()


def _server(region, server_id):
    return nova_helpers.server(region.driver, server_id)


def _on(region, host):
    return [s for s in region.servers if _server(region, s)["OS-EXT-SRV-ATTR:host"] == host]


def _hypervisor(region, host):
    return region.openstack("hypervisor", "show", host)


def _state(region, host):
    return region.api("/hypervisors/%s" % host)["hypervisor"]["state"]


def _service(region, host):
    service = region.driver.get_service(host)
    return {"state": service.state, "status": service.status, "forced_down": service.forced_down,
            "disabled_reason": service.disabled_reason}


def _up_and_enabled(service):
    return service if service["state"] == "up" and service["status"] == "enabled" \
        and not service["forced_down"] else None


def _reported_since(region, host, since_s):
    """Whether Nova has heard from ``host``'s nova-compute since ``since_s`` (POSIX s).

    A forced-down service shows down whatever it reports; its first report moves its
    ``updated_at`` (its start does not). Once a cycle has cleared ``forced_down`` (which moves
    ``updated_at`` too), Nova shows it up from its first report on.
    """
    service = region.driver.get_service(host)
    return (service.updated_at or 0) > since_s if service.forced_down else service.state == "up"


def _active_off(server, host):
    return server["status"] == "ACTIVE" and server["OS-EXT-SRV-ATTR:host"] != host


def _ended(recommendation):
    return recommendation if recommendation["status"] in ("succeeded", "failed", "cancelled") else None


def _all_active_off(region, server_ids, host):
    return all(_active_off(_server(region, s), host) for s in server_ids)


def _evacuations_from(region, server_id, host):
    migrations = nova_helpers.nova(region.driver, "GET", "/os-migrations?instance_uuid=%s" % server_id,
                                   "2.80")["migrations"]
    return [m for m in migrations if m["migration_type"] == "evacuation" and m["source_compute"] == host]


def _warning_codes_about(region, host):
    """The reason codes about ``host`` of the HA aggregate's warning events."""
    events = region.api("/events?aggregate=%s&kind=HA&state=warning&limit=50" % HA_AGGREGATE, "1.1")["events"]
    return {r["code"] for e in events for r in e["reasons"] if r["host"] == host}


def _kill_and_wait(region, host, victims, timeout_s=240):
    killed_at = region.kill_compute(host)
    region.wait(lambda: _all_active_off(region, victims, host), timeout_s,
                "the servers of the killed %s were not ACTIVE elsewhere" % host)
    return time.monotonic() - killed_at


def test_ha_waits_until_the_operator_declares_the_storage(region):
    region.openstack("config", "set", "--enabled", "true")
    region.openstack("cycle", "run")
    region.cycle_after(0, 90, "no first cycle completed")  # it brings Nova's aggregates in
    shown = region.openstack("aggregate", "show", HA_AGGREGATE)
    assert shown["storage_mode"] is None and shown["no_op_mode"] is True
    region.openstack("aggregate", "set", HA_AGGREGATE, "--marker", "HA", "--no-noop")
    newest = region.newest_cycle()
    region.openstack("cycle", "run")
    cycle = region.cycle_after(newest, 90, "no cycle completed")
    assert "storage_undeclared" in (cycle["reason"] or ""), cycle


def test_a_nova_outage_is_insufficient_evidence_and_nothing_is_fenced(region):
    region.openstack("aggregate", "set", HA_AGGREGATE, "--storage-mode", "shared")
    newest = region.newest_cycle()
    region.cloud.fault(503)
    try:
        region.openstack("cycle", "run")
        cycle = region.cycle_after(newest, 90, "no cycle completed during the Nova outage")
    finally:
        region.cloud.fault(None)
    assert cycle["reason_code"] == "sources_failed" and "nova failed" in cycle["reason"], cycle
    assert {h["state"] for h in region.openstack("hypervisor", "list")} == {"ok"}


def test_an_overloaded_compute_gets_a_manual_live_migration_that_nova_completes(region):
    hot, cool = region.hosts[6], region.hosts[7]
    region.openstack("aggregate", "set", LB_AGGREGATE, "--marker", "LB", "--no-noop")
    region.openstack("cycle", "run")

    def manual_recommendations():
        return [r for r in region.api("/recommendations?status=manual_action&limit=50")["recommendations"]
                if r["source_host"] == hot]
    recs = region.wait(manual_recommendations, 120, "no manual LB recommendation for the saturated host")
    rec = region.openstack("recommendation", "show", recs[0]["id"])
    assert rec["action"] == "live_migrate" and rec["target_host"] == cool and rec["vm_id"] in region.lb_servers
    load = rec["load_calculation"]
    assert load["source"]["cpu_before_pct"] == pytest.approx(100.0, abs=1.0), load
    assert load["source"]["syn_score_after_pct"] < load["source"]["syn_score_before_pct"], load
    assert load["target"]["syn_score_after_pct"] > load["target"]["syn_score_before_pct"], load

    region.openstack("recommendation", "run", rec["id"])
    region.wait(lambda: _ended(region.api("/recommendations/%s" % rec["id"])["recommendation"]), 120,
                "the live migration did not end")
    done = region.openstack("recommendation", "show", rec["id"])
    assert done["status"] == "succeeded", done
    assert _server(region, rec["vm_id"])["OS-EXT-SRV-ATTR:host"] == cool
    migrations = nova_helpers.nova(region.driver, "GET", "/os-migrations?instance_uuid=%s" % rec["vm_id"],
                                   "2.80")["migrations"]
    assert [(m["migration_type"], m["status"], m["dest_compute"]) for m in migrations] == [
        ("live-migration", "completed", cool)]


def test_a_killed_compute_is_fenced_and_its_servers_run_elsewhere_with_shipped_defaults(region):
    victim = region.hosts[0]
    victims = _on(region, victim)
    assert len(victims) == 5
    image = next(i for i in region.driver.list_images() if i.id == nova_helpers.IMAGE)  # from Glance
    assert image.properties["architecture"] == "x86_64"  # ImagePropertiesFilter has an input to judge
    recovered_s = _kill_and_wait(region, victim, victims)
    print("kill -> all %d servers ACTIVE elsewhere: %.1f s" % (len(victims), recovered_s))
    assert recovered_s <= RECOVERY_BUDGET_S, recovered_s
    # before Nova's verdict the dead host was reported silent, never as a broken heartbeat path
    assert _warning_codes_about(region, victim) == {"host_silent"}

    region.wait(lambda: _state(region, victim) == "maintenance", 60, "the killed compute did not end in maintenance")
    state = _hypervisor(region, victim)
    assert state["state"] == "maintenance", state
    assert any(step["fencer"] == "nova" and step["confirmed"] for step in state["fencing"]), state
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
    assert {r["attempts"] for r in evacuations} == {1}
    region.first_event = state["event_id"]


def test_an_engine_killed_mid_evacuation_resumes_with_exactly_one_evacuation_per_server(region):
    victim = region.hosts[1]
    victims = _on(region, victim)
    assert len(victims) >= 5
    region.kill_compute(victim)
    region.wait(lambda: _state(region, victim) == "evacuating", 150, "the host was not being evacuated",
                interval_s=0.1)
    region.stop_service("keyvrm-engine", sig=signal.SIGKILL)
    region.start_service("keyvrm-engine")
    region.wait(lambda: _all_active_off(region, victims, victim), 240,
                "the servers were not ACTIVE elsewhere after the engine restart")
    for server_id in victims:
        assert len(_evacuations_from(region, server_id, victim)) == 1, server_id
    region.wait(lambda: _state(region, victim) == "maintenance", 60, "the host did not end in maintenance")


def test_a_third_failure_with_two_hosts_handled_is_handled_and_a_pinned_vm_never_hangs(region):
    victim = region.hosts[2]
    victims = _on(region, victim)
    assert victims and _server(region, region.no_evac)["OS-EXT-SRV-ATTR:host"] == victim
    _kill_and_wait(region, victim, victims)
    region.wait(lambda: _state(region, victim) == "error", 60, "the host with a pinned VM did not end in error")
    state = _hypervisor(region, victim)
    assert state["state"] == "error", state
    assert region.no_evac in state["reason"] and "no stop sent" in state["reason"], state
    event = region.api("/events/%s" % state["event_id"])["event"]
    region.wait(lambda: region.api("/events/%s" % state["event_id"])["event"]["status"] not in UNFINISHED_EVENT,
                60, "the HA event did not end: %s" % event)
    assert _server(region, region.no_evac)["OS-EXT-SRV-ATTR:host"] == victim
    history = region.openstack("vm", "history", region.no_evac)
    assert any(h["status"] == "down_with_host" for h in history), history
    assert not [r for r in region.api("/recommendations?vm_id=%s" % region.no_evac)["recommendations"]]
    stopping = time.monotonic()
    region.stop_service("keyvrm-engine")
    assert time.monotonic() - stopping < 15.0
    region.start_service("keyvrm-engine")


def test_a_restored_host_is_back_in_nova_and_handled_again_when_it_dies_again(region):
    victim = region.hosts[0]
    revived_s = time.time()
    region.revive_compute(victim)
    restored = region.openstack("hypervisor", "restore", victim)
    assert restored["state"] == "restoring"
    again = region.openstack("hypervisor", "restore", victim, check=False)
    assert again.returncode != 0 and "hypervisor_not_restorable" in again.stderr  # restoring, or ok already

    # a cycle returns the host to service once Nova shows its compute up, from its first report (5 s
    # after it starts); a cycle before that leaves the host restoring until the next period
    region.wait(lambda: _reported_since(region, victim, revived_s), 60, "the revived compute did not report to Nova")
    region.openstack("cycle", "run")
    region.wait(lambda: _state(region, victim) == "ok", 120, "the restored host did not return to service")
    service = region.wait(lambda: _up_and_enabled(_service(region, victim)), 60,
                          "Nova does not show the restored compute up and enabled")
    assert service["disabled_reason"] is None
    audit = region.api("/config/audit?scope=hypervisor&target=%s" % victim)["audit"]
    assert [(a["old_value"], a["new_value"]) for a in audit] == [("maintenance", "restoring")]

    newcomer = nova_helpers.boot(region.driver, "after-restore", victim)
    region.servers[newcomer] = victim
    _kill_and_wait(region, victim, [newcomer])
    state = _hypervisor(region, victim)
    assert state["state"] in ("evacuating", "maintenance") and state["event_id"] != region.first_event
