"""An operator's drain of a host against real Nova, through KeyVRM's REST API (``keyvrmclient``).

One deployment for the module (see ``deployment``), tests in file order, each leaving the
region as the next expects. Three computes in aggregate ``agg-drain`` (no marker: neither
HA nor LB acts, only the drain): compute000 holds four m1.tiny servers, one of them marked
``lb_no_migrate`` (the business config's default ``lb_no_migrate_key``, a value the harvest
reads as true); compute001-002 are empty, with room for all of them.

The operator drains compute000 with a reason. Nova must then show what KeyVRM claims: the
three other servers live-migrated off it (Nova's migration records), its compute service
disabled with "KeyVRM drain: <reason>"; KeyVRM's host is ``drain_incomplete``, its reason
naming the pinned server. The operator live-migrates that one by hand through Nova: the
host becomes ``maintenance`` at the next cycle. Restored with failback (API 1.8), it is
``ok`` and Nova shows its service enabled again; that same cycle records a ``failback``
event with a manual live migration back for each of the three servers KeyVRM moved (the
aggregate's ``failback`` keeps its default, ``recommend``), none for the pinned one, which
the operator moved, not KeyVRM (the event's reasons do not name it). The operator runs
them (``recommendation run``): Nova shows the three ACTIVE on compute000 again, each
brought back by a completed live migration. Cycles are requested (``POST /v1/cycles``)
rather than waited for; a run wakes the engine over RPC, no cycle needed.

Then a drain with ``allow_cold`` (API 1.11): a stopped server is booted on the compute
that holds nothing (neither the three nor the pinned one), and that compute is drained
with ``allow_cold``. Nova refuses to live-migrate a SHUTOFF server; KeyVRM cold-migrates
it instead: Nova's ``migrate`` to the host KeyVRM chose, ``confirmResize`` once the
server is VERIFY_RESIZE there. Nova must show the server SHUTOFF on that host, moved by
one migration record of type ``migration`` that ended ``confirmed``, its instance actions
``migrate`` and ``confirmResize``; the compute is ``maintenance``. Its per-VM timeline
(KeyVRM's journal: accepted, VERIFY_RESIZE and confirmed; Nova's record and actions) is
printed too.

Every step's times are collected (KeyVRM's recommendations and their journal, Nova's
migration records, the host's states with their ``state_since``) and printed as a timeline
(``pytest -s`` shows it).

Lean on purpose, as it runs on the e2e critical path: three computes, the heartbeat agents
in one farm process, KeyVRM driven in-process through keyvrmclient instead of the
``openstack`` CLI (one interpreter start per command).
"""

import datetime

from keystoneauth1 import session as ks_session
import pytest

from keyvrm.drivers.cloud import openstack
from keyvrm.model import settings
from keyvrmclient import v1
from tests.e2e import deployment as e2e
from tests.e2e import metrics_feeder
from tests.e2e import timeline
from tests.nova import conftest as nova_helpers

AGGREGATE = "agg-drain"
REASON = "CHG-4711 BIOS update"
NO_MIGRATE_KEY = settings.AppConfig().lb_no_migrate_key  # the shipped default, "lb_no_migrate"
MOVABLE = 3
CYCLE_TIMEOUT_S = 90.0
FINAL = ("succeeded", "failed", "cancelled")


@pytest.fixture(scope="module")
def region(tmp_path_factory, pg_databases):
    """Three computes in ``agg-drain``, four servers on the first (one pinned), KeyVRM enabled."""
    nova_helpers.require_nova()
    deployed = e2e.Deployment(tmp_path_factory.mktemp("e2e-drain"), pg_databases(), computes=3,
                              farm_heartbeats=True)
    deployed.timeline = timeline.Timeline()
    try:
        deployed.start()
        driver = openstack.from_endpoints(deployed.cloud.service_endpoints)
        hosts = deployed.cloud.endpoints["hosts"]
        nova_helpers.aggregate(driver, AGGREGATE, hosts)
        drained = hosts[0]
        movable = [nova_helpers.boot(driver, "drain-%d" % i, drained) for i in range(MOVABLE - 1)]
        pinned = nova_helpers.boot(driver, "pinned", drained, metadata={NO_MIGRATE_KEY: "true"})
        movable.append(nova_helpers.boot(driver, "drain-%d" % (MOVABLE - 1), drained))
        metrics_feeder.feed(deployed.tsdb_url, {drained: (30.0, 40.0, 5.0), hosts[1]: (10.0, 20.0, 5.0),
                                                hosts[2]: (12.0, 22.0, 5.0)},
                            {s: (0.2, 256.0, 1.0) for s in movable + [pinned]})
        client = v1.Client(session=ks_session.Session(), endpoint_override=deployed.api_url, api_version="1.8")
        client.update_config(enabled=True)
        _cycle(deployed, client)  # the first enabled cycle brings Nova's aggregates and hosts in
        assert AGGREGATE in {a["name"] for a in client.list_aggregates()}
        deployed.driver, deployed.client, deployed.hosts = driver, client, hosts
        deployed.drained, deployed.movable, deployed.pinned = drained, movable, pinned
        deployed.names = {s: nova_helpers.server(driver, s)["name"] for s in movable + [pinned]}
        yield deployed
    finally:
        if not deployed.timeline.printed:
            deployed.timeline.print("drain and failback timeline (partial: a test failed)")
        deployed.stop()


def _cycle(region, client) -> dict:
    """Request a cycle and wait until it has ended; that cycle."""
    cycle_id = client.request_cycle()["id"]
    return region.wait(lambda: _ended_cycle(client, cycle_id), CYCLE_TIMEOUT_S,
                       "requested cycle %s did not end" % cycle_id, interval_s=0.25)


def _ended_cycle(client, cycle_id):
    cycle = client.get_cycle(cycle_id)
    return cycle if cycle["status"] in ("completed", "failed", "skipped") else None


def _host(region):
    """KeyVRM's record of the drained host; a state not seen before goes into the timeline."""
    hypervisor = region.client.get_hypervisor(region.drained)
    seen = getattr(region, "states_seen", [])
    if not seen or seen[-1] != hypervisor["state"]:
        seen.append(hypervisor["state"])
        region.states_seen = seen
        since = hypervisor["state_since"] or datetime.datetime.now(datetime.timezone.utc).isoformat()
        region.timeline.add(since, "host %s: KeyVRM state %s%s (%s)" % (
            region.drained, hypervisor["state"], "" if hypervisor["state_since"] else " (seen; no state_since)",
            hypervisor["reason"]))
    return hypervisor


def _service(region):
    service = region.driver.get_service(region.drained)
    return {"status": service.status, "disabled_reason": service.disabled_reason}


def _migrations(region, server_id):
    return nova_helpers.nova(region.driver, "GET", "/os-migrations?instance_uuid=%s" % server_id,
                             "2.80")["migrations"]


def _host_of(region, server_id):
    return nova_helpers.host_of(region.driver, server_id)


def _settled(region, event_id):
    recs = region.client.list_recommendations(event_id=event_id)
    return recs if recs and all(r["status"] in FINAL for r in recs) else None


def _completed(client, event_id):
    event = client.get_event(event_id)
    return event if event["status"] == "completed" else None


def _add_instance_actions(region, server_id, name):
    """Nova's instance actions of a server and their compute events, into the timeline (its own record of a move)."""
    for action in nova_helpers.nova(region.driver, "GET", "/servers/%s/os-instance-actions" % server_id,
                                    "2.84")["instanceActions"]:
        detail = nova_helpers.nova(region.driver, "GET", "/servers/%s/os-instance-actions/%s" % (
            server_id, action["request_id"]), "2.84")["instanceAction"]
        region.timeline.add(action["start_time"], "%s: Nova instance action %s" % (name, action["action"]))
        for event in detail.get("events") or ():
            region.timeline.add(event["finish_time"], "%s:   Nova event %s %s on %s" % (
                name, event["event"], event["result"], event.get("host")))


def _add_recommendations(region, recs):
    """Each recommendation's start, journal and end into the timeline (its creation the caller words)."""
    for rec in recs:
        name = region.names[rec["vm_id"]]
        region.timeline.add(rec["started_at"], "%s: recommendation started" % name)
        for op in region.client.list_operations(rec["id"]):
            region.timeline.add(op["created_at"], "%s:   journal %s%s%s" % (
                name, op["kind"], " (%.2f s)" % op["duration_s"] if op["duration_s"] is not None else "",
                ": %s" % op["message"] if op["message"] else ""))
        region.timeline.add(rec["finished_at"], "%s: recommendation %s" % (name, rec["status"]))


def _add_migration(region, server_id, migration):
    """A Nova migration record's creation and last update into the timeline."""
    name = region.names[server_id]
    region.timeline.add(migration["created_at"], "%s: Nova live-migration %s created (%s -> %s)" % (
        name, migration["id"], migration["source_compute"], migration["dest_compute"]))
    region.timeline.add(migration["updated_at"], "%s: Nova live-migration %s %s on %s" % (
        name, migration["id"], migration["status"], migration["dest_compute"]))


def test_a_drain_live_migrates_every_movable_server_and_leaves_the_pinned_one(region):
    client, host = region.client, region.drained
    requested = client.drain_hypervisor(host, REASON)
    assert requested["state"] == "draining", requested
    _host(region)
    _cycle(region, client)  # disables the service, plans and starts the live migrations
    hypervisor = _host(region)
    assert hypervisor["state"] == "draining" and hypervisor["event_id"], hypervisor
    event_id = hypervisor["event_id"]
    recs = region.wait(lambda: _settled(region, event_id), 120, "the drain's live migrations did not end")
    _cycle(region, client)  # sees them ended: the drain ends
    hypervisor = _host(region)

    # KeyVRM: one live migration per movable server, all succeeded; the host drain_incomplete naming the pinned one
    event = client.get_event(event_id)
    region.timeline.add(event["created_at"], "drain event %s opened (cycle %s)" % (event_id, event["cycle_id"]))
    region.timeline.add(event["finished_at"], "drain event %s %s, state %s" % (
        event_id, event["status"], event["state"]))
    for rec in recs:
        region.timeline.add(rec["created_at"], "%s: recommendation %s created (%s -> %s, auto-run)" % (
            region.names[rec["vm_id"]], rec["id"][:8], rec["source_host"], rec["target_host"]))
    _add_recommendations(region, recs)
    assert sorted((r["vm_id"], r["action"], r["source_host"], r["status"]) for r in recs) == sorted(
        (s, "live_migrate", host, "succeeded") for s in region.movable), recs
    assert event["kind"] == "drain" and event["status"] == "completed" and event["state"] == "warning", event
    assert any(r["code"] == "excluded_by_metadata" and r["vm_id"] == region.pinned for r in event["reasons"]), event
    assert hypervisor["state"] == "drain_incomplete", hypervisor
    assert region.pinned in hypervisor["reason"] and not any(s in hypervisor["reason"] for s in region.movable), \
        hypervisor

    # Nova: the servers are on their targets, each moved by one completed live migration; the service disabled
    for rec in recs:
        server = nova_helpers.server(region.driver, rec["vm_id"])
        assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", rec["target_host"]), server
        migrations = _migrations(region, rec["vm_id"])
        assert [(m["migration_type"], m["status"], m["source_compute"], m["dest_compute"]) for m in migrations] == [
            ("live-migration", "completed", host, rec["target_host"])], migrations
        _add_migration(region, rec["vm_id"], migrations[0])
    assert _host_of(region, region.pinned) == host and not _migrations(region, region.pinned)
    assert _service(region) == {"status": "disabled", "disabled_reason": "KeyVRM drain: " + REASON}
    region.drain_targets = {r["vm_id"]: r["target_host"] for r in recs}
    print("\ndrained %s: %s moved to %s; %s" % (host, len(recs), sorted({r["target_host"] for r in recs}),
                                                hypervisor["reason"]))


def test_the_pinned_server_moved_by_hand_leaves_the_host_in_maintenance(region):
    client, host = region.client, region.drained
    nova_helpers.nova(region.driver, "POST", "/servers/%s/action" % region.pinned, "2.68",
                      json={"os-migrateLive": {"host": None, "block_migration": "auto"}})

    def moved():
        server = nova_helpers.server(region.driver, region.pinned)
        migrations = _migrations(region, region.pinned)
        done = server["status"] == "ACTIVE" and server["OS-EXT-SRV-ATTR:host"] != host and migrations \
            and migrations[0]["status"] == "completed"
        return (server, migrations) if done else None
    server, [migration] = region.wait(moved, 60, "Nova did not live-migrate the pinned server")
    assert (migration["migration_type"], migration["source_compute"]) == ("live-migration", host), migration
    region.pinned_on = server["OS-EXT-SRV-ATTR:host"]
    region.timeline.add(migration["created_at"],
                        "pinned: operator's live migration by hand (Nova %s) created" % migration["id"])
    region.timeline.add(migration["updated_at"], "pinned: Nova live-migration %s %s on %s" % (
        migration["id"], migration["status"], server["OS-EXT-SRV-ATTR:host"]))

    _cycle(region, client)
    hypervisor = _host(region)
    assert hypervisor["state"] == "maintenance", hypervisor
    assert _service(region)["status"] == "disabled"  # maintenance: it stays out of Nova's scheduling


def test_a_restore_with_failback_brings_the_three_servers_back_after_recommendation_run(region):
    client, host = region.client, region.drained
    restored = client.restore_hypervisor(host, failback=True)
    assert restored["state"] == "restoring", restored
    _host(region)
    cycle = _cycle(region, client)  # returns the host to service, then plans its failback from that cycle's snapshot
    hypervisor = _host(region)
    assert hypervisor["state"] == "ok", hypervisor
    assert _service(region) == {"status": "enabled", "disabled_reason": None}
    audit = client.list_config_audit(scope="hypervisor", target=host)
    assert sorted((a["old_value"], a["new_value"]) for a in audit) == [
        ("maintenance", "restoring"), ("ok", "draining")], audit

    # KeyVRM: one failback event of that cycle, a manual live migration back for each server its drain moved;
    # the pinned one (moved by the operator, never by KeyVRM) is not KeyVRM's: no recommendation, no reason either
    failbacks = client.list_events(kind="failback")
    assert len(failbacks) == 1, (failbacks, cycle, hypervisor)
    event = failbacks[0]
    assert (event["cycle_id"], event["aggregate_name"], event["status"]) == (
        cycle["id"], AGGREGATE, "manual_action"), event
    assert [(r["code"], r["host"], r["details"]) for r in event["reasons"]] == [
        ("failback", host, {"moving": MOVABLE, "staying": 0})], event
    assert not any(region.pinned in str(r) for r in event["reasons"]), event
    region.timeline.add(event["created_at"], "failback event %s opened (cycle %s): %s" % (
        event["id"], event["cycle_id"], event["reasons"][0]["message"]))
    recs = client.list_recommendations(event_id=event["id"])
    assert sorted((r["vm_id"], r["action"], r["source_host"], r["target_host"], r["status"]) for r in recs) == sorted(
        (s, "live_migrate", region.drain_targets[s], host, "manual_action") for s in region.movable), recs
    for rec in recs:
        region.timeline.add(rec["created_at"], "%s: failback recommendation %s created (%s -> %s, manual_action)" % (
            region.names[rec["vm_id"]], rec["id"][:8], rec["source_host"], rec["target_host"]))

    # the operator runs them (API 1.8 "recommendation run"); the engine is woken over RPC, no cycle needed
    for rec in recs:
        accepted = client.run_recommendation(rec["id"])
        assert (accepted["status"], accepted["engine_notified"]) == ("created", True), accepted
    recs = region.wait(lambda: _settled(region, event["id"]), 120, "the failback's live migrations did not end")
    event = region.wait(lambda: _completed(client, event["id"]), 30, "the failback event was not settled")
    region.timeline.add(event["finished_at"], "failback event %s %s, state %s" % (
        event["id"], event["status"], event["state"]))
    _add_recommendations(region, recs)
    assert sorted((r["vm_id"], r["status"]) for r in recs) == sorted((s, "succeeded") for s in region.movable), recs
    assert event["state"] == "healthy", event

    # Nova: the three are ACTIVE on the host again, each with a completed live migration back to it;
    # the pinned one stays where the operator put it
    for rec in recs:
        server = nova_helpers.server(region.driver, rec["vm_id"])
        assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", host), server
        migrations = _migrations(region, rec["vm_id"])
        back = [m for m in migrations if m["dest_compute"] == host]
        assert [(m["migration_type"], m["status"], m["source_compute"]) for m in back] == [
            ("live-migration", "completed", region.drain_targets[rec["vm_id"]])], migrations
        assert len(migrations) == 2, migrations  # the drain's and the failback's
        _add_migration(region, rec["vm_id"], back[0])
    assert _host_of(region, region.pinned) == region.pinned_on and len(_migrations(region, region.pinned)) == 1
    assert _host(region)["state"] == "ok"
    assert region.states_seen == ["draining", "drain_incomplete", "maintenance", "restoring", "ok"], \
        region.states_seen
    region.timeline.print("drain and failback timeline")


def test_a_drain_with_allow_cold_cold_migrates_a_stopped_server_and_nova_confirms_it(region):
    empty = next(h for h in region.hosts[1:] if h != region.pinned_on)  # the three went home, the pinned one stays
    stopped = nova_helpers.boot(region.driver, "stopped", empty)
    nova_helpers.nova(region.driver, "POST", "/servers/%s/action" % stopped, "2.53", json={"os-stop": None})
    region.wait(lambda: nova_helpers.server(region.driver, stopped)["status"] == "SHUTOFF", 30,
                "Nova did not stop the server")
    region.names[stopped] = "stopped"
    region.timeline = timeline.Timeline()
    client = v1.Client(session=ks_session.Session(), endpoint_override=region.api_url, api_version="1.11")
    requested = client.drain_hypervisor(empty, "CHG-4712 PSU swap", allow_cold=True)
    assert (requested["state"], requested["reason"].endswith(" (cold migration allowed): CHG-4712 PSU swap")) == (
        "draining", True), requested
    region.timeline.add(requested["state_since"], "host %s: drain with allow_cold requested" % empty)
    _cycle(region, client)  # plans and starts the cold migration
    event_id = client.get_hypervisor(empty)["event_id"]
    (rec,) = region.wait(lambda: _settled(region, event_id), 60, "the cold migration did not end")
    _cycle(region, client)  # sees it ended: the host is empty
    hypervisor = client.get_hypervisor(empty)

    # KeyVRM: one cold migration, accepted, confirmed once VERIFY_RESIZE, succeeded; the host in maintenance
    event = client.get_event(event_id)
    assert (rec["vm_id"], rec["action"], rec["source_host"], rec["status"]) == (
        stopped, "cold_migrate", empty, "succeeded"), rec
    assert rec["target_host"] not in (empty, None)
    drain_reason = next(r for r in event["reasons"] if r["code"] == "drain")
    assert (drain_reason["details"]["cold"], drain_reason["details"]["allow_cold"]) == (1, True), drain_reason
    assert (event["status"], event["state"], hypervisor["state"]) == ("completed", "healthy", "maintenance"), (
        event, hypervisor)
    journal = [(op["kind"], op["message"]) for op in client.list_operations(rec["id"])]
    assert [kind for kind, _ in journal] == ["start", "prepare", "execute", "execute", "success"], journal
    assert "confirmResize accepted" in journal[3][1] and "VERIFY_RESIZE" in journal[3][1], journal

    # Nova: the server SHUTOFF on the target, moved by one cold migration that ended confirmed
    server = nova_helpers.server(region.driver, stopped)
    assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("SHUTOFF", rec["target_host"]), server
    migrations = _migrations(region, stopped)
    assert [(m["migration_type"], m["status"], m["source_compute"], m["dest_compute"]) for m in migrations] == [
        ("migration", "confirmed", empty, rec["target_host"])], migrations
    actions = nova_helpers.nova(region.driver, "GET", "/servers/%s/os-instance-actions" % stopped,
                                "2.84")["instanceActions"]
    assert {"migrate", "confirmResize"} <= {a["action"] for a in actions}, actions

    region.timeline.add(event["created_at"], "drain event %s opened: %s" % (event_id, drain_reason["message"]))
    region.timeline.add(rec["created_at"], "stopped: recommendation %s created (%s -> %s, cold_migrate)" % (
        rec["id"][:8], empty, rec["target_host"]))
    _add_recommendations(region, [rec])
    migration = migrations[0]
    region.timeline.add(migration["created_at"], "stopped: Nova migration %s created (%s -> %s)" % (
        migration["id"], migration["source_compute"], migration["dest_compute"]))
    region.timeline.add(migration["updated_at"], "stopped: Nova migration %s %s" % (
        migration["id"], migration["status"]))
    _add_instance_actions(region, stopped, "stopped")
    region.timeline.add(hypervisor["state_since"], "host %s: KeyVRM state %s (%s)" % (
        empty, hypervisor["state"], hypervisor["reason"]))
    region.timeline.print("cold migration timeline")
