"""GET /v1/aggregates/{name}/load: per-host load judged with the aggregate's LB settings."""

import webob

from keyvrm.db import api as db_api
from keyvrm.model import snapshot as m
from tests.unit.api import seed


def _get(app, path, status=200):
    response = webob.Request.blank(path).get_response(app)
    assert response.status_int == status, response.text
    return response.json


def test_hosts_are_scored_and_judged_with_the_aggregate_settings(noauth_app, seeded_db):
    settings = {"lb_weights": {"cpu": 1, "ram": 1, "net": 0}, "lb_overload_threshold": 80,
                "lb_target_max_load": 70, "lb_ceilings": {"cpu": 85}}
    db_api.update_aggregate_config(seeded_db, "agg-a", settings, "test")
    snapshot_id = seed.store(seeded_db, seed.loaded_snapshot())
    body = _get(noauth_app, "/v1/aggregates/agg-a/load")["aggregate_load"]
    assert (body["snapshot_id"], body["lb_overload_threshold"], body["lb_target_max_load"]) == (snapshot_id, 80, 70)
    assert body["lb_ceilings"]["cpu"] == 85 and body["lb_hysteresis_pct"] == 10
    hot, partial = body["hosts"]
    assert hot == {"host": "cmp-1", "cpu": 100.0, "ram": 40.12, "net": 10.0, "syn_score": 70.06,
                   "overloaded": True, "causes": ["cpu 100% >= ceiling 85%"], "missing": [], "vm_count": 2}
    assert partial["syn_score"] == 40.0 and not partial["overloaded"]
    assert (partial["net"], partial["missing"]) == (None, ["net"])
    assert "hugepages" not in hot


def test_the_score_above_the_threshold_is_a_cause(noauth_app, seeded_db):
    db_api.update_aggregate_config(seeded_db, "agg-a", {"lb_overload_threshold": 50, "lb_target_max_load": 40}, "test")
    seed.store(seeded_db, seed.loaded_snapshot())
    hot = _get(noauth_app, "/v1/aggregates/agg-a/load")["aggregate_load"]["hosts"][0]
    assert hot["overloaded"] and hot["causes"][0].startswith("syn_score ") and "> threshold 50%" in hot["causes"][0]


def test_unknown_aggregate_is_404(noauth_app):
    assert _get(noauth_app, "/v1/aggregates/nope/load", 404)["errors"][0]["status"] == 404


def test_no_snapshot_yet_is_an_empty_host_list(sqlite_db):
    db_api.sync_aggregates(sqlite_db, [m.Aggregate("agg-a", 1, None, "az1")])
    body = _get(seed.make_app(sqlite_db), "/v1/aggregates/agg-a/load")["aggregate_load"]
    assert (body["snapshot_id"], body["taken_at"], body["hosts"]) == (None, None, [])
