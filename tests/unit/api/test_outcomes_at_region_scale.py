"""On a 240-host region every aggregate's page says its own "why" (issue 25: the wrong "why").

The demo's region generated at 240 hosts in 24 aggregates of 10, with every kind of
aggregate an operator has: HA+LB acting, LB too early, NOOP with the operator's reason,
and aggregates nobody marked. After two cycles, ``GET /v1/aggregates/{name}`` at 1.2 must
give each aggregate an outcome of its own, from a finished cycle, saying why for that
aggregate, never another's.
"""

from keyvrm.scenarios import harness as harness_mod
from keyvrm.scenarios import scenario

HOSTS, PER_AGGREGATE = 240, 10


def _region():
    scen = scenario.load(scenario.shipped("demo-embedded"))
    scen.topology = dict(scen.topology, hosts=HOSTS, hosts_per_aggregate=PER_AGGREGATE)
    return scen.start()


def _configure(harness, names):
    assert harness.api("PATCH", "/v1/config", {"enabled": True}).status == 200
    kinds = {}
    for i, name in enumerate(names):
        if i % 4 == 0:
            body, kinds[name] = {"marker": "HA+LB", "no_op_mode": False, "storage_mode": "shared"}, "acting"
        elif i % 4 == 1:
            body, kinds[name] = {"marker": "LB", "no_op_mode": False, "lb_period": 3600}, "lb"
        elif i % 4 == 2:
            body, kinds[name] = {"marker": "HA", "no_op_reason": "rack %d in maintenance" % i}, "noop"
        else:
            body, kinds[name] = None, "unmarked"  # new aggregates start NOOP with no marker
        if body:
            assert harness.api("PATCH", "/v1/aggregates/%s" % name, body).status == 200, name
    return kinds


def test_each_of_24_aggregates_on_240_hosts_shows_its_own_latest_outcome():
    harness = harness_mod.Harness(_region())
    try:
        names = sorted(a["name"] for a in harness.api("GET", "/v1/aggregates?limit=100").body["aggregates"])
        assert len(names) == HOSTS // PER_AGGREGATE
        kinds = _configure(harness, names)
        for _ in range(2):
            assert harness.cycle()
            harness.advance(60.0)
        finished = {c["id"] for c in harness.api("GET", "/v1/cycles?limit=10").body["cycles"]
                    if c["status"] == "completed"}
        for name in names:
            latest = harness.api("GET", "/v1/aggregates/%s" % name, version="1.2").body["aggregate"]["latest_outcome"]
            assert latest["cycle_id"] in finished, (name, latest)
            assert {o["aggregate_name"] for o in latest["outcomes"]} | {
                e["aggregate_name"] for e in latest["events"]} == {name}, (name, latest)
            codes = {o["reason_code"] for o in latest["outcomes"]}
            if kinds[name] == "noop":
                [outcome] = latest["outcomes"]
                assert outcome["reason_code"] == "noop" and "rack" in outcome["reasons"][0]["message"], outcome
            elif kinds[name] == "unmarked":
                assert codes == {"no_marker"}, (name, latest)
            elif kinds[name] == "lb":
                assert "lb_too_early" in codes or "no_overload" in codes, (name, latest)
            else:
                # an HA aggregate that could not absorb a host failure says so (its own failover analysis)
                assert codes <= {"no_failure", "no_overload", "lb_too_early", "insufficient_failover_capacity"} \
                    and codes, (name, latest)
    finally:
        harness.close()
