"""An evacuation's target killed just after Nova accepted it, against real Nova (issue 32 items 1 and 8).

One deployment for the module (see ``deployment``): three computes in the HA aggregate
``agg-ha`` (storage shared), compute000 with two m1.tiny servers, compute001-002 with one
each. Nova's timers are shortened (``service_down_time`` 10 s, ``report_interval`` 2 s),
so the heartbeat (stale after 10 s) and Nova agree on a death within ~10 s; the agents run
in one farm process and KeyVRM is read in-process through keyvrmclient, to keep it lean.

compute000 is killed. The other computes hold the rebuilds that reach them (the fake
cloud's ``hold-rebuilds``): Nova's evacuation records stay ``accepted``. The first target
Nova accepts an evacuation to (T) is then killed with that rebuild unread, as a compute
that dies just after Nova accepted an evacuation to it, and the others are let go. Nova
leaves that evacuation ``accepted`` for ever (its server ``rebuilding``); before issue 32
the executor waited for the 6 h migrating timeout and T, touched by it, was skipped as
busy. Now: once Nova shows T down the run ends ``target_down``, round 2 evacuates the
server to a live host (Nova carries it on the old record), and T is fenced and its own
server evacuated. Both hosts' servers must be ACTIVE on live hosts within
``RECOVERY_BUDGET_S`` of the first kill, each by exactly one successful evacuation.

Right after KeyVRM fenced compute000, the host as ``openstack keyvrm hypervisor show``
shows it (API 1.12, read in-process) must show the fence (the nova_force_down step
confirmed, RFC 3339 times), Nova's view beside it with ``seen_at``, and the host's
availability zone (Nova's zone list leaves a disabled compute out).

The times of every step are printed as a timeline (``pytest -s`` shows it).
"""

import time

from keystoneauth1 import session as ks_session
import pytest

from keyvrm.drivers.cloud import openstack
from keyvrmclient import v1
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.e2e import timeline
from tests.nova import conftest as nova_helpers

AGGREGATE = "agg-ha"
NOVA_TIMERS = (10, 2)  # service_down_time, report_interval (s)
# First kill -> every server of both dead hosts ACTIVE elsewhere: two deaths seen (~10 s each:
# Nova's verdict and the stale heartbeat), two fences, a round 2 and five evacuations; the issue
# asks for < 3 min, against the 6 h the migrating timeout took before.
RECOVERY_BUDGET_S = 180.0
FINAL = ("succeeded", "failed", "cancelled")


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    """The region under HA (KeyVRM enabled, the aggregate marked HA, NOOP off, storage shared)."""
    nova_helpers.require_nova()
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e-dead-target"), pg_databases(), computes=3,
                              nova_timers=NOVA_TIMERS, farm_heartbeats=True)
    deployed.timeline = timeline.Timeline()
    client = None
    try:
        deployed.start()
        driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        hosts = deployed.cloud.endpoints["hosts"]
        nova_helpers.aggregate(driver, AGGREGATE, hosts)
        client = v1.Client(session=ks_session.Session(), endpoint_override=deployed.api_url)
        client.update_config(enabled=True)
        client.request_cycle()  # the first enabled cycle brings Nova's aggregates in (servers boot meanwhile)
        servers = {nova_helpers.boot(driver, "first-%d" % i, hosts[0]): hosts[0] for i in range(2)}
        servers.update({nova_helpers.boot(driver, "on-%s" % host, host): host for host in hosts[1:]})
        metrics_feeder.feed(deployed.tsdb_url, {h: (20.0, 30.0, 5.0) for h in hosts},
                            {s: (0.2, 256.0, 1.0) for s in servers})
        deployed.wait(lambda: AGGREGATE in {a["name"] for a in client.list_aggregates()}, 90,
                      "the aggregate did not appear")
        client.update_aggregate(AGGREGATE, marker="HA", no_op_mode=False, storage_mode="shared")
        deployed.driver, deployed.client, deployed.hosts, deployed.servers = driver, client, hosts, servers
        yield deployed
    finally:
        if not deployed.timeline.printed:
            deployed.timeline.print("dead target timeline (partial: a test failed)")
            for event in client.list_events(limit=50) if client is not None else ():
                print("event %s %s/%s: %s" % (event["id"], event["status"], event["state"],
                                              "; ".join(r["message"] for r in event["reasons"])))
        deployed.stop()


def _evacuations(region, server_id):
    return [m for m in nova_helpers.nova(region.driver, "GET", "/os-migrations?instance_uuid=%s" % server_id,
                                         "2.80")["migrations"] if m["migration_type"] == "evacuation"]


def _first_accepted(region, source):
    """(server, migration) of the first evacuation from ``source`` Nova accepted (held: still ``accepted``)."""
    for server_id, host in region.servers.items():
        if host != source:
            continue
        for migration in _evacuations(region, server_id):
            if migration["status"] == "accepted" and migration["dest_compute"]:
                return server_id, migration
    return None


def _active_on_live_hosts(region, server_ids, dead):
    placed = {}
    for server_id in server_ids:
        server = nova_helpers.server(region.driver, server_id)
        if server["status"] != "ACTIVE" or server["OS-EXT-STS:task_state"] or \
                server["OS-EXT-SRV-ATTR:host"] in dead:
            return None
        placed[server_id] = server["OS-EXT-SRV-ATTR:host"]
    return placed


def _fenced(region, host):
    hypervisor = region.client.get_hypervisor(host)
    return hypervisor if hypervisor["state"] in ("fenced", "evacuating", "maintenance") else None


def _settled(region, host):
    hypervisor = region.client.get_hypervisor(host)
    return hypervisor if hypervisor["state"] in ("maintenance", "error") else None


def _record(region, recommendations, names):
    """Each evacuation's accepted, failed and succeeded times from its journal, onto the timeline."""
    for rec in recommendations:
        name = names[rec["vm_id"]]
        for op in region.client.list_operations(rec["id"]):
            if op["kind"] == "execute" and " accepted as migration " in (op["message"] or ""):
                region.timeline.add(op["created_at"], "%s: %s -> %s round %s: %s" % (
                    name, rec["source_host"], rec["target_host"], rec["ha_round"], op["message"]))
            elif op["kind"] in ("error", "success"):
                region.timeline.add(op["created_at"], "%s: %s -> %s round %s %s: %s%s" % (
                    name, rec["source_host"], rec["target_host"], rec["ha_round"], op["kind"], op["message"],
                    " (%s)" % op["error"] if op["error"] else ""))


def test_a_target_killed_after_nova_accepted_an_evacuation_to_it_costs_minutes_not_hours(region):
    source = region.hosts[0]
    candidates = region.hosts[1:]
    for host in candidates:
        region.cloud.hold_rebuilds(host)
    killed_at = region.kill_compute(source)
    region.timeline.add(time.time(), "%s killed (nova-compute stopped, heartbeat agent gone)" % source)

    server_id, accepted = region.wait(lambda: _first_accepted(region, source), 90,
                                      "no evacuation from %s reached a target" % source, interval_s=0.1)
    target = accepted["dest_compute"]
    region.kill_compute(target)  # its rebuild of server_id never runs: Nova's record stays accepted
    region.timeline.add(time.time(), "%s killed just after Nova accepted migration %s of %s to it"
                        % (target, accepted["id"], server_id))
    for host in candidates:
        if host != target:
            region.cloud.hold_rebuilds(host, hold=False)
    region.timeline.add(accepted["created_at"], "Nova accepted migration %s: %s to %s" % (
        accepted["id"], server_id, target))

    # item 8: right after the fence, the host as `hypervisor show` shows it (API 1.12) says so, beside Nova's view
    shown = region.client.get_hypervisor(source)
    assert region.client.api_version == "1.12" and shown["state"] in ("fenced", "evacuating"), shown
    [nova_step] = [step for step in shown["fencing"] if step["method"] == "nova_force_down"]
    assert nova_step["outcome"] == "confirmed" and nova_step["started_at"].endswith("Z"), nova_step
    assert shown["fenced_at"].endswith("Z") and shown["service"]["seen_at"].endswith("Z"), shown
    assert shown["availability_zone"] == "nova", shown
    region.timeline.add(shown["fenced_at"], "%s fenced (KeyVRM: %s); Nova's view as of %s: %s/%s, forced_down %s" % (
        source, ", ".join("%s %s" % (s["method"], s["outcome"]) for s in shown["fencing"]),
        shown["service"]["seen_at"], shown["service"]["state"], shown["service"]["status"],
        shown["service"]["forced_down"]))

    victims = [s for s, host in region.servers.items() if host in (source, target)]
    placed = region.wait(lambda: _active_on_live_hosts(region, victims, (source, target)), RECOVERY_BUDGET_S,
                         "the servers of %s and %s were not ACTIVE on live hosts" % (source, target))
    recovered_s = time.monotonic() - killed_at
    done_at = time.time()
    for server_id_, host in placed.items():
        region.timeline.add(done_at, "%s ACTIVE on %s" % (server_id_, host))
    target_state = region.wait(lambda: _settled(region, target), 60, "the dead target was not handled")
    region.wait(lambda: _settled(region, source), 60, "the first host was not handled")
    region.timeline.add(target_state["fenced_at"], "%s fenced (KeyVRM: %s)" % (
        target, ", ".join("%s %s" % (s["method"], s["outcome"]) for s in target_state["fencing"])))

    recommendations = [r for r in region.client.list_recommendations(limit=100) if r["action"] == "evacuate"]
    names = {s: s for s in victims}
    _record(region, recommendations, names)
    region.timeline.print("dead target timeline: %s killed, then %s just after Nova accepted an evacuation"
                          " to it; every server ACTIVE on a live host %.1f s after the first kill"
                          % (source, target, recovered_s))
    print("kill -> all %d servers of both hosts ACTIVE on live hosts: %.1f s" % (len(victims), recovered_s))
    assert recovered_s < RECOVERY_BUDGET_S, recovered_s

    stuck = [r for r in recommendations if r["vm_id"] == server_id and r["ha_round"] == 1]
    assert [(r["status"], r["target_host"]) for r in stuck] == [("failed", target)], stuck
    assert "target_down" in stuck[0]["reason"], stuck
    for victim in victims:  # each server evacuated once, to a live host
        succeeded = [r for r in recommendations if r["vm_id"] == victim and r["status"] == "succeeded"]
        assert len(succeeded) == 1 and succeeded[0]["target_host"] == placed[victim], (victim, succeeded)
    assert target_state["state"] == "maintenance" and any(
        s["method"] == "nova_force_down" and s["outcome"] == "confirmed" for s in target_state["fencing"])
    assert {r["status"] for r in recommendations} <= set(FINAL)
    first_event = region.client.get_event(stuck[0]["event_id"])
    assert first_event["state"] == "warning", first_event  # never healthy: one evacuation ended target_down
