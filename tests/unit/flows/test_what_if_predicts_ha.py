"""What-if asked the cycle before a host dies predicts what HA then does: the same targets, the same VMs left behind."""

import os

import pytest

from keyvrm.scenarios import acts
from keyvrm.scenarios import harness
from keyvrm.scenarios import scenario

SCENARIOS = os.path.join(os.path.dirname(__file__), "..", "..", "scenarios", "ha")


def _rejections(entry):
    return entry["vm_id"], entry["code"], sorted((h["host"], h["check"]) for h in entry["rejected_hosts"])


@pytest.mark.parametrize("name, dead, moves, stay", [("anti-affinity-some-placed.yaml", "cmp-00003", 3, 0),
                                                     ("anti-affinity-tight-aggregate.yaml", "cmp-00001", 0, 2)])
def test_what_if_before_the_failure_is_what_ha_does_after_it(tmp_path, name, dead, moves, stay):
    scen = scenario.load(os.path.join(SCENARIOS, name))
    h = harness.Harness(scen.start(), str(tmp_path))
    try:
        for act in scen.acts:
            for method, path, body in acts.calls(h.db, act):
                assert h.api(method, path, body).ok
        predicted = None
        for _ in range(scen.cycles):
            assert h.cycle()
            if predicted is None:  # the first cycle's snapshot, before the host dies at 1 min
                reply = h.api("POST", "/v1/aggregates/agg-001/what-if", {"fail": [dead]}, version="1.3")
                assert reply.ok, reply.body
                [predicted] = reply.body["what_if"]["hosts"]
            h.advance(scen.cycle_every_s)
        recommendations = h.api("GET", "/v1/recommendations").body["recommendations"]
        [event_id] = {r["event_id"] for r in recommendations} or [
            e["id"] for e in h.api("GET", "/v1/events?aggregate=agg-001&kind=HA").body["events"]
            if e["reason_code"] == "no_target"]
        event = h.api("GET", "/v1/events/%s" % event_id).body["event"]
        state = h.api("GET", "/v1/hypervisors/%s" % dead).body["hypervisor"]["state"]
    finally:
        h.close()
    assert (len(predicted["moves"]), len(predicted["no_target"])) == (moves, stay)
    assert sorted((m["vm_id"], m["target"]) for m in predicted["moves"]) == sorted(
        (r["vm_id"], r["target_host"]) for r in recommendations if r["action"] == "evacuate")
    assert sorted(map(_rejections, predicted["no_target"])) == sorted(map(_rejections, event["no_target"]))
    assert predicted["end_state"] == state
