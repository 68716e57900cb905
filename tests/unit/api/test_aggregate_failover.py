"""GET /v1/aggregates/{name}/failover: the aggregate's tolerance against its reserve, planned now; no writes."""

import jsonschema
import msgspec
import webob

from keyvrm.api import microversion
from keyvrm.api import openapi
from keyvrm.db import api as db_api
from keyvrm.model import snapshot as m
from keyvrm.planning import failure_domains
from tests.unit.api import seed
from tests.unit.api import test_aggregate_what_if as what_if
from tests.unit.planning import builders as b

PATH = "/v1/aggregates/agg-a/failover"
LATEST = "vm-resource-manager latest"
ha_db = what_if.ha_db  # the fixture: KeyVRM enabled, agg-a HA with storage declared


def _get(app, status=200, version=LATEST, path=PATH):
    request = webob.Request.blank(path)
    request.headers["OpenStack-API-Version"] = version
    response = request.get_response(app)
    assert response.status_int == status, response.text
    return response.json


def _full_hosts():
    """h1..h3 with 16 GiB each, 12 GiB used on each by one VM: any host's VM fits nowhere."""
    return [what_if._host(h, ram_mb=16384) for h in ("h1", "h2", "h3")]


def _full_vms():
    return [b.vm("v%d" % i, h, ram_mb=12288) for i, h in enumerate(("h1", "h2", "h3"), 1)]


def test_a_full_aggregate_tolerates_no_failure_and_names_each_host_and_vm_at_risk(ha_db, noauth_app):
    seed.store(ha_db, what_if._region(_full_vms(), [b.host(h.name, ram_mb=16384, used_ram_mb=12288,
                                                           aggregates=("agg-a",)) for h in _full_hosts()]))
    body = _get(noauth_app)["failover"]
    assert (body["aggregate"], body["tolerance"], body["reserve"], body["below_reserve"]) == ("agg-a", 0, 1, True)
    assert (body["hosts"], body["max_k"], body["exact"], body["ha_runs"]) == (3, 2, True, True)
    assert [risk["hosts"] for risk in body["at_risk"]] == [["h1"], ["h2"], ["h3"]]
    [entry] = body["at_risk"][0]["vms_without_target"]
    assert (entry["vm_id"], entry["source_host"], entry["code"]) == ("v1", "h1", "ram_depleted")
    assert sorted(r["host"] for r in entry["rejected_hosts"]) == ["h2", "h3"]


def test_a_roomy_aggregate_meets_its_reserve(ha_db, noauth_app):
    seed.store(ha_db, what_if._region([b.vm("v1", "h1"), b.vm("v2", "h2")]))
    body = _get(noauth_app)["failover"]
    assert (body["tolerance"], body["below_reserve"], body["at_risk"]) == (2, False, [])


def test_a_reserve_of_two_is_not_met_by_a_tolerance_of_one(ha_db, noauth_app):
    hosts = [b.host(h, ram_mb=16384, used_ram_mb=12288 if h != "h4" else 0, aggregates=("agg-a",))
             for h in ("h1", "h2", "h3", "h4")]
    seed.store(ha_db, what_if._region(_full_vms(), hosts))
    db_api.update_aggregate_config(ha_db, "agg-a", {"ha_failover_reserve": 2}, "test")
    body = _get(noauth_app)["failover"]
    assert (body["tolerance"], body["reserve"], body["below_reserve"]) == (1, 2, True)
    assert all(len(risk["hosts"]) == 2 for risk in body["at_risk"]) and body["at_risk"]


def test_the_response_is_the_documented_schema_and_nothing_is_written(ha_db, noauth_app):
    seed.store(ha_db, what_if._region(_full_vms(), [b.host(h.name, ram_mb=16384, used_ram_mb=12288,
                                                           aggregates=("agg-a",)) for h in _full_hosts()]))
    before = what_if._rows(ha_db)
    body = _get(noauth_app)
    operation = openapi.document()["paths"]["/v1/aggregates/{name}/failover"]["get"]
    jsonschema.validate(body, operation["responses"]["200"]["content"]["application/json"]["schema"])
    assert what_if._rows(ha_db) == before


def test_refusals_name_why(ha_db, noauth_app, sqlite_db):
    seed.store(ha_db, what_if._region([]))
    error = _get(noauth_app, 400, path="/v1/aggregates/agg-b/failover")["errors"][0]
    assert error["field"] == "name" and "marked LB" in error["detail"]
    assert _get(noauth_app, 404, path="/v1/aggregates/nope/failover")["errors"][0]["status"] == 404
    assert _get(noauth_app, 404, version="vm-resource-manager 1.3")["errors"][0]["status"] == 404


def test_before_the_first_snapshot_it_is_a_conflict(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [m.Aggregate("agg-a", 1, None, "az1")])
    db_api.update_aggregate_config(sqlite_db, "agg-a", {"marker": "HA", "no_op_mode": False}, "test")
    _get(seed.make_app(sqlite_db), 409)


def _racked_region(pattern=r"^(h[12]|h3)$"):
    """h1..h3 full, h4 empty; the pattern names each host its own domain (h4 in none) unless told."""
    hosts = [b.host(h, ram_mb=16384, used_ram_mb=12288 if h != "h4" else 0, aggregates=("agg-a",))
             for h in ("h1", "h2", "h3", "h4")]
    region = what_if._region(_full_vms(), hosts)
    agg_a = msgspec.structs.replace(region.aggregates[0], metadata={failure_domains.PATTERN_KEY: pattern})
    return msgspec.structs.replace(region, aggregates=(agg_a,) + region.aggregates[1:])


def test_from_1_5_each_failure_domain_is_planned_failing_as_a_whole(ha_db, noauth_app):
    seed.store(ha_db, _racked_region(r"^(h)[12]$"))  # h1 and h2 in rack "h": h4 takes one VM, not both
    body = _get(noauth_app)["failover"]
    assert (body["tolerance"], body["below_reserve"]) == (1, False)  # hosts: as in 1.4 (pairs at risk)
    [rack] = body["failure_domains"]
    assert (rack["name"], rack["hosts"], body["failure_domain_error"]) == ("h", ["h1", "h2"], None)
    [entry] = rack["vms_without_target"]
    assert entry["vm_id"] in ("v1", "v2") and entry["code"] == "ram_depleted"


def test_at_1_4_the_answer_is_unchanged_by_labels(ha_db, noauth_app):
    seed.store(ha_db, _racked_region(r"^(h)[12]$"))
    at_1_4 = _get(noauth_app, version="vm-resource-manager 1.4")["failover"]
    latest = _get(noauth_app)["failover"]
    assert "failure_domains" not in at_1_4 and "failure_domain_error" not in at_1_4
    assert {k: v for k, v in latest.items() if not k.startswith("failure_domain")} == dict(
        at_1_4, computed_at=latest["computed_at"])


def test_a_pattern_that_is_not_a_regular_expression_is_named_in_the_answer(ha_db, noauth_app):
    seed.store(ha_db, _racked_region("(h"))
    body = _get(noauth_app)["failover"]
    assert body["failure_domains"] == [] and body["tolerance"] == 1
    assert body["failure_domain_error"].startswith("ha_failure_domain_pattern '(h' on aggregate agg-a is not")


def test_both_versions_answer_their_documented_schema(ha_db, noauth_app):
    seed.store(ha_db, _racked_region())
    for version in ("1.4", "1.5"):
        body = _get(noauth_app, version="vm-resource-manager " + version)
        paths = openapi.document(version=microversion.parse(version))["paths"]
        operation = paths["/v1/aggregates/{name}/failover"]["get"]
        jsonschema.validate(body, operation["responses"]["200"]["content"]["application/json"]["schema"])
