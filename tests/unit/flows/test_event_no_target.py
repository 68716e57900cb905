"""An event keeps, per VM or source without a target, which check rejected each host (issue 17)."""

import os

import jsonschema

from keyvrm.api import microversion
from keyvrm.api.schemas import event as event_schema
from keyvrm.db import api as db_api
from keyvrm.flows import events
from keyvrm.model import reason_list
from keyvrm.planning import reasons
from keyvrm.scenarios import acts
from keyvrm.scenarios import harness
from keyvrm.scenarios import scenario
from keyvrm.scheduling import capacity

AA = "ServerGroupAntiAffinityFilter"
SCENARIOS = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios")


def _ha_no_target(vm_id, source, hosts):
    rejected = tuple((host, AA, 1) for host in hosts)
    return reasons.no_target(vm_id, {AA: len(hosts)}, vm_id=vm_id, host=source, rejected=rejected)


def test_entries_are_stored_with_the_reason_text_and_ordered_by_source_then_vm(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "HA", "HA", None)
    found = [_ha_no_target("vm-b", "cmp-2", ["cmp-3"]), reasons.no_filters(),
             _ha_no_target("vm-a", "cmp-2", ["cmp-4", "cmp-3"]), _ha_no_target("vm-z", "cmp-1", ["cmp-3"]),
             reasons.capacity(capacity.RAM_DEPLETED, "vm-r", "aggregate RAM depleted: no host has room for vm-r",
                              "cmp-1", rejected=(("cmp-3", capacity.RAM_DEPLETED, 1),))]
    events.add_reasons(sqlite_db, event_id, found, status="generated")
    event = db_api.get_event_summary(sqlite_db, event_id)
    assert event["status"] == "generated" and event["reason_code"] == "no_target"
    assert [(e["source_host"], e["vm_id"], e["code"]) for e in event["no_target"]] == [
        ("cmp-1", "vm-r", "ram_depleted"), ("cmp-1", "vm-z", "no_target"),
        ("cmp-2", "vm-a", "no_target"), ("cmp-2", "vm-b", "no_target")]
    vm_a = event["no_target"][2]
    assert vm_a == {"vm_id": "vm-a", "source_host": "cmp-2", "code": "no_target", "message": found[2].message,
                    "rejected_hosts": [{"host": "cmp-4", "check": AA, "vms": 1},
                                       {"host": "cmp-3", "check": AA, "vms": 1}],
                    "more_hosts": 0}
    assert (found[2].message, "cmp-2", "vm-a") in [  # the same sentence as the reason's
        (e.message, e.host, e.vm_id) for e in reason_list.ReasonList.from_json(event["reasons"]).entries]
    assert "no_target" not in db_api.list_events(sqlite_db, aggregate_name="agg-1")[0]


def test_the_list_is_capped_per_entry_and_more_hosts_counts_what_was_left_out(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "LB", "LB", None)
    hosts = ["cmp-%02d" % i for i in range(1, 8)]
    events.add_reasons(sqlite_db, event_id, [_ha_no_target("vm-a", "cmp-00", hosts)], max_rejected_hosts=3)
    [entry] = db_api.get_event_summary(sqlite_db, event_id)["no_target"]
    assert [h["host"] for h in entry["rejected_hosts"]] == hosts[:3] and entry["more_hosts"] == 4
    assert events.no_target_entry(_ha_no_target("vm-a", "cmp-00", hosts), 0)["more_hosts"] == 7


def test_a_task_run_again_records_each_entry_once_and_a_later_round_replaces_its_vm(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "HA", "HA", None)
    first = [_ha_no_target("vm-a", "cmp-1", ["cmp-2"]), _ha_no_target("vm-b", "cmp-1", ["cmp-2"])]
    events.add_reasons(sqlite_db, event_id, first)
    events.add_reasons(sqlite_db, event_id, first)
    events.add_reasons(sqlite_db, event_id, [_ha_no_target("vm-b", "cmp-1", ["cmp-3"])])
    event = db_api.get_event_summary(sqlite_db, event_id)
    assert [(e["vm_id"], [h["host"] for h in e["rejected_hosts"]]) for e in event["no_target"]] == [
        ("vm-a", ["cmp-2"]), ("vm-b", ["cmp-3"])]
    assert [e.vm_id for e in reason_list.ReasonList.from_json(event["reasons"]).entries] == ["vm-a", "vm-b"]


def test_an_event_without_such_reasons_has_an_empty_list(sqlite_db):
    event_id = events.open_event(sqlite_db, None, "agg-1", "LB", "LB", None)
    events.complete_event(sqlite_db, event_id, "healthy", [reasons.no_overload("agg-1", 80.0)])
    assert db_api.get_event_summary(sqlite_db, event_id)["no_target"] == []


def test_the_real_api_shows_the_hosts_that_rejected_each_vm_of_a_dead_host(tmp_path):
    # tests/scenarios/ha/anti-affinity-tight-aggregate.yaml: a three-host aggregate whose every VM is in
    # a three-member anti-affinity group; cmp-00001 dies and neither survivor may take its VMs
    scen = scenario.load(os.path.join(SCENARIOS, "ha", "anti-affinity-tight-aggregate.yaml"))
    h = harness.Harness(scen.start(), str(tmp_path))
    try:
        for act in scen.acts:
            for method, path, body in acts.calls(h.db, act):
                assert h.api(method, path, body).ok
        for _ in range(scen.cycles):
            assert h.cycle()
            h.advance(scen.cycle_every_s)
        listed = h.api("GET", "/v1/events?aggregate=agg-001&kind=HA").body["events"]
        assert all("no_target" not in e for e in listed)
        [event_id] = [e["id"] for e in listed if e["reason_code"] == "no_target"]
        reply = h.api("GET", "/v1/events/%s" % event_id)
        assert reply.ok
        event = reply.body["event"]
    finally:
        h.close()
    jsonschema.validate(reply.body, event_schema.EVENT.at(microversion.MIN_VERSION))  # the harness asks for none
    dead_vms = sorted(vm_id for vm_id, vm in h.region.vms.items() if vm.host == "cmp-00001")
    assert [(e["source_host"], e["vm_id"], e["code"]) for e in event["no_target"]] == [
        ("cmp-00001", vm_id, "no_target") for vm_id in dead_vms]
    for entry in event["no_target"]:
        assert entry["rejected_hosts"] == [{"host": host, "check": AA, "vms": 1} for host in ("cmp-00002", "cmp-00003")]
        assert entry["more_hosts"] == 0 and entry["message"] in event["reason"]
