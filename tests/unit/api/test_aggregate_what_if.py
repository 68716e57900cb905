"""POST /v1/aggregates/{name}/what-if: HA's own plan for hosts supposed dead, from the newest snapshot; no writes."""

import json

import jsonschema
import pytest
import sqlalchemy as sa
import webob

from keyvrm.api import openapi
from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.model import snapshot as m
from tests.unit.api import seed
from tests.unit.planning import builders as b

PATH = "/v1/aggregates/agg-a/what-if"
LATEST = "vm-resource-manager latest"
HOSTS = ("h1", "h2", "h3", "h4")


def _host(name, ram_mb=65536, aggregates=("agg-a",)):
    return b.host(name, ram_mb=ram_mb, aggregates=aggregates)


def _region(vms, hosts=None, heartbeat_at=b.NOW_S):
    """Aggregate agg-a of hosts h1..h4 (64 GiB each unless told), agg-b of h9, and ``vms``."""
    hosts = hosts or [_host(h) for h in HOSTS]
    other = _host("h9", aggregates=("agg-b",))
    return m.RegionSnapshot(
        region="RegionOne", taken_at=heartbeat_at, availability_zones=(m.AvailabilityZone("az1"),),
        aggregates=(m.Aggregate("agg-a", 1, None, "az1", {}, tuple(h.name for h in hosts)),
                    m.Aggregate("agg-b", 2, None, "az1", {}, ("h9",))),
        hypervisors=tuple(hosts) + (other,), vms=tuple(vms),
        sources={name: m.SourceStatus(name, True) for name in m.SOURCES})


def _post(app, body, status=200, version=LATEST, path=PATH):
    request = webob.Request.blank(path, method="POST")
    request.headers["OpenStack-API-Version"] = version
    request.body, request.content_type = json.dumps(body).encode(), "application/json"
    response = request.get_response(app)
    assert response.status_int == status, response.text
    return response.json


@pytest.fixture
def ha_db(seeded_db):
    db_api.update_app_config(seeded_db, {"enabled": True}, "test")
    db_api.update_aggregate_config(seeded_db, "agg-a", {"storage_mode": "shared"}, "test")
    return seeded_db


def _what_if(app, *hosts):
    return _post(app, {"fail": list(hosts)})["what_if"]


def test_moves_come_in_the_order_the_executor_asks_nova(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("late", "h1", evacuate_order=2), b.vm("early", "h1", evacuate_order=1),
                               b.vm("any", "h1"), b.vm("other", "h2", evacuate_order=1)]))
    body = _what_if(noauth_app, "h1", "h2")
    assert (body["aggregate"], body["fail"], body["ha_runs"]) == ("agg-a", ["h1", "h2"], True)
    assert body["ha_not_run"] is None
    first, second = body["hosts"]
    steps = sorted((mv["step"], mv["tier"], mv["vm_id"]) for h in body["hosts"] for mv in h["moves"])
    assert [(tier, vm_id) for _, tier, vm_id in steps] == [(1, "early"), (1, "other"), (2, "late"), (3, "any")]
    assert [s for s, _, _ in steps] == [1, 2, 3, 4]
    assert {mv["target"] for h in body["hosts"] for mv in h["moves"]} <= {"h3", "h4"}
    assert {mv["round"] for mv in first["moves"]} == {1}
    assert first["moves"][0]["name"] == "early" and first["moves"][0]["source"] == "h1"
    assert (first["end_state"], first["vm_count"], second["end_state"]) == ("maintenance", 3, "maintenance")
    assert first["skipped"] == first["no_target"] == [] and first["handled_state"] is None and first["fenced"]


def test_vms_without_a_target_carry_the_rejections_events_carry(ha_db, noauth_app):
    hosts = [_host("h1"), _host("h2", ram_mb=8192), _host("h3", ram_mb=8192)]
    seed.store(ha_db, _region([b.vm("big", "h1", ram_mb=32768), b.vm("small", "h1", ram_mb=1024)], hosts))
    [host] = _what_if(noauth_app, "h1")["hosts"]
    assert [mv["vm_id"] for mv in host["moves"]] == ["small"]
    [entry] = host["no_target"]
    assert (entry["vm_id"], entry["source_host"], entry["code"]) == ("big", "h1", "ram_depleted")
    assert sorted(r["host"] for r in entry["rejected_hosts"]) == ["h2", "h3"]
    assert entry["more_hosts"] == 0 and "big" in entry["message"]
    assert host["end_state"] == "error"  # a VM stays on the dead host


def test_skipped_vms_keep_their_reason_and_the_host_ends_in_error(ha_db, noauth_app):
    db_api.update_aggregate_config(ha_db, "agg-a", {"storage_mode": "local"}, "test")
    seed.store(ha_db, _region([b.vm("pinned", "h1", no_evac=True), b.vm("ephemeral", "h1", volume_backed=False),
                               b.vm("volume", "h1")]))
    [host] = _what_if(noauth_app, "h1")["hosts"]
    assert [mv["vm_id"] for mv in host["moves"]] == ["volume"]
    assert sorted((r["code"], r["vm_id"], r["host"]) for r in host["skipped"]) == [
        ("excluded_by_metadata", "pinned", "h1"), ("local_disk", "ephemeral", "h1")]
    assert host["end_state"] == "error"


def test_busy_vms_are_those_of_unfinished_recommendations_and_a_busy_failed_host_is_fenced(ha_db, noauth_app):
    # the seed's running recommendation moves vm-locked from cmp-2 to cmp-1: both hosts are busy
    hosts = [_host(h) for h in ("cmp-1", "cmp-2", "h3", "h4")]
    seed.store(ha_db, _region([b.vm("vm-locked", "h3"), b.vm("free", "h3")], hosts))
    db_api.set_hypervisor_state(ha_db, "cmp-1", "ok")
    body = _what_if(noauth_app, "h3", "cmp-2")
    by_host = {h["host"]: h for h in body["hosts"]}
    assert [(r["code"], r["vm_id"]) for r in by_host["h3"]["skipped"]] == [("busy", "vm-locked")]
    assert [mv["vm_id"] for mv in by_host["h3"]["moves"]] == ["free"]  # to h4: cmp-1 is busy too
    assert by_host["h3"]["moves"][0]["target"] == "h4" and by_host["h3"]["end_state"] == "error"
    # a dead host is never busy with work that cannot progress (issue 32): fenced, and empty here
    assert by_host["cmp-2"]["skipped"] == []
    assert (by_host["cmp-2"]["fenced"], by_host["cmp-2"]["end_state"]) == (True, "maintenance")


def test_a_host_keyvrm_already_handles_is_reported_not_planned(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v1", "h1"), b.vm("v2", "h2")]))
    db_api.set_hypervisor_state(ha_db, "h1", "maintenance", reason="test")
    first, second = _what_if(noauth_app, "h1", "h2")["hosts"]
    assert (first["handled_state"], first["end_state"], first["moves"]) == ("maintenance", "maintenance", [])
    assert [r["code"] for r in first["skipped"]] == ["already_handled"]
    assert second["moves"][0]["vm_id"] == "v2" and second["handled_state"] is None


def test_past_the_mass_failure_guard_nothing_is_fenced_or_planned(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v%d" % i, h) for i, h in enumerate(HOSTS)]))
    body = _what_if(noauth_app, "h1", "h2", "h3")  # 3 of 4 hosts: more than [ha] mass_failure_share (50%)
    assert [n["code"] for n in body["notes"]] == ["mass_failure_guard"]
    assert [(h["fenced"], h["end_state"], h["moves"]) for h in body["hosts"]] == [(False, "ok", [])] * 3
    assert [h["fenced"] for h in _what_if(noauth_app, "h1", "h2")["hosts"]] == [True, True]


def test_an_aggregate_in_noop_is_planned_and_says_ha_does_not_run(ha_db, noauth_app):
    db_api.update_aggregate_config(ha_db, "agg-a", {"no_op_mode": True, "no_op_reason": "maintenance window"},
                                   "test")
    seed.store(ha_db, _region([b.vm("v1", "h1")]))
    body = _what_if(noauth_app, "h1")
    assert body["ha_runs"] is False and body["ha_not_run"]["code"] == "noop"
    assert body["hosts"][0]["moves"][0]["vm_id"] == "v1"


def _rows(db):
    """Every row of every table, as text, per table."""
    with db.reader() as session:
        return {table.name: sorted(repr(tuple(row)) for row in session.execute(sa.select(table)))
                for table in models.Base.metadata.sorted_tables}


def test_what_if_writes_nothing(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v%d" % i, "h1", ram_mb=16384) for i in range(9)]
                              + [b.vm("pinned", "h2", no_evac=True)]))
    before = _rows(ha_db)
    body = _what_if(noauth_app, "h1", "h2")
    assert any(h["moves"] for h in body["hosts"]) and any(h["no_target"] for h in body["hosts"])
    assert _rows(ha_db) == before


def test_the_response_is_the_documented_schema(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v1", "h1"), b.vm("big", "h1", ram_mb=200000), b.vm("pin", "h1", no_evac=True)]))
    body = _post(noauth_app, {"fail": ["h1"]})
    operation = openapi.document()["paths"]["/v1/aggregates/{name}/what-if"]["post"]
    jsonschema.validate(body, operation["responses"]["200"]["content"]["application/json"]["schema"])


@pytest.mark.parametrize("body, field", [
    ({}, "fail"),
    ({"fail": []}, "fail"),
    ({"fail": ["h1", "h1"]}, "fail"),
    ({"fail": ["nowhere"]}, "fail"),
    ({"fail": ["h9"]}, "fail"),
    ({"fail": ["h1"], "dry": True}, "dry"),
])
def test_bad_input_is_a_400_naming_the_field(ha_db, noauth_app, body, field):
    seed.store(ha_db, _region([b.vm("v1", "h1")]))
    error = _post(noauth_app, body, 400)["errors"][0]
    assert error["field"] == field, error


def test_the_refusals_say_why(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v1", "h1")]))
    assert "not in the newest snapshot" in _post(noauth_app, {"fail": ["nowhere"]}, 400)["errors"][0]["detail"]
    assert "not in aggregate agg-a (it is in agg-b)" in _post(noauth_app, {"fail": ["h9"]}, 400)["errors"][0][
        "detail"]


def test_an_aggregate_ha_does_not_plan_for_is_a_400_naming_it(ha_db, noauth_app):
    seed.store(ha_db, _region([]))
    error = _post(noauth_app, {"fail": ["h9"]}, 400, path="/v1/aggregates/agg-b/what-if")["errors"][0]
    assert error["field"] == "name" and "marked LB" in error["detail"]
    assert _post(noauth_app, {"fail": ["h1"]}, 404, path="/v1/aggregates/nope/what-if")["errors"][0]["status"] == 404


def test_before_the_first_snapshot_with_hosts_it_is_a_conflict(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [m.Aggregate("agg-a", 1, None, "az1")])
    db_api.update_aggregate_config(sqlite_db, "agg-a", {"marker": "HA", "no_op_mode": False}, "test")
    _post(seed.make_app(sqlite_db), {"fail": ["h1"]}, 409)


def test_the_endpoint_exists_from_microversion_1_3(ha_db, noauth_app):
    seed.store(ha_db, _region([b.vm("v1", "h1")]))
    assert _post(noauth_app, {"fail": ["h1"]}, 404, version="vm-resource-manager 1.2")["errors"][0]["status"] == 404
    _post(noauth_app, {"fail": ["h1"]}, 200, version="vm-resource-manager 1.3")
    assert "/v1/aggregates/{name}/what-if" not in openapi.document("", openapi.microversion.parse("1.2"))["paths"]
