"""Promises of the API as a whole: its OpenAPI document is true, no secret leaks, requests survive a down engine."""

import json
import re
import urllib.parse

import jsonschema
import oslo_messaging
import pytest
import webob

from keyvrm.api import microversion
from keyvrm.api import openapi
from keyvrm.api import route as route_module
from keyvrm.api import router
from keyvrm.db import api as db_api
from keyvrm.model import states
from tests.unit.api import seed

PATH_VALUES = {"name": "agg-a", "event_id": "ev-1", "recommendation_id": "rec-done", "vm_id": "vm-1",
               "snapshot_id": "1", "cycle_id": "1", "host": "cmp-1"}


def _get(app, path, version=None):
    request = webob.Request.blank(re.sub(r"{(\w+)}", lambda mo: PATH_VALUES[mo.group(1)], path))
    if version is not None:
        request.headers[microversion.HEADER] = "%s %s" % (microversion.SERVICE_TYPE, version)
    return request.get_response(app)


def _get_routes():
    return [r for r in router.all_routes() if r.method == "GET"]


def test_openapi_document_lists_exactly_the_routed_endpoints():
    document = openapi.document()
    documented = {(m.upper(), p) for p, ops in document["paths"].items() for m in ops}
    assert documented == {(r.method, r.path) for r in router.all_routes()}
    for path, ops in document["paths"].items():
        for operation in ops.values():
            declared = {p["name"] for p in operation["parameters"] if p["in"] == "path"}
            assert declared == set(re.findall(r"{(\w+)}", path))


def _pointer(document, expression):
    """The value an OpenAPI runtime expression ``$response.body#/a/0/b`` names in ``document``."""
    value = document
    for part in expression.split("#", 1)[1].strip("/").split("/"):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def test_links_of_seeded_reads_lead_to_existing_resources(noauth_app):
    by_operation_id = {r.operation_id: r for r in router.all_routes()}
    followed = set()
    for route in _get_routes():
        body = _get(noauth_app, route.path, route.since and "%d.%d" % route.since).json
        for link in route.links:
            target = by_operation_id[link.operation_id]
            values = {name: str(_pointer(body, expression)) for name, expression in link.parameters.items()}
            if target.method != "GET":
                continue
            path = re.sub(r"{(\w+)}", lambda mo: values.pop(mo.group(1)), target.path)
            response = webob.Request.blank(path + "?" + urllib.parse.urlencode(values)).get_response(noauth_app)
            assert response.status_int == 200, (route.operation_id, link.operation_id, path, response.text)
            followed.add(link.operation_id)
    assert {"show_aggregate", "show_event", "show_recommendation", "list_operations", "show_cycle",
            "show_hypervisor", "show_snapshot", "download_snapshot", "list_vm_history"} <= followed


def test_a_link_to_an_unknown_operation_is_refused(monkeypatch):
    bad = route_module.Route("GET", "/v1/x", lambda call: {}, "x", {}, links=(
        route_module.Link("show_nothing", {"id": "$response.body#/id"}),))
    monkeypatch.setattr(router, "all_routes", lambda: [bad])
    with pytest.raises(ValueError, match="show_nothing"):
        openapi.document()


@pytest.mark.parametrize("version", microversion.VERSIONS)
def test_every_read_answers_with_the_schema_its_version_documents(noauth_app, version):
    document = openapi.document("", microversion.parse(version))
    for route in _get_routes():
        if not route.served_at(microversion.parse(version)):
            assert route.path not in document["paths"] or "get" not in document["paths"][route.path]
            assert _get(noauth_app, route.path, version).status_int == 404
            continue
        response = _get(noauth_app, route.path, version)
        assert response.status_int == route.status, (route.path, response.text)
        assert response.headers[microversion.HEADER] == "%s %s" % (microversion.SERVICE_TYPE, version)
        documented = document["paths"][route.path]["get"]["responses"][str(route.status)]
        jsonschema.validate(response.json, documented["content"]["application/json"]["schema"])


def test_a_schema_that_changed_in_a_microversion_differs_between_the_documents():
    before = openapi.document("", microversion.MIN_VERSION)["paths"]["/v1/events/{event_id}"]["get"]
    after = openapi.document("", microversion.MAX_VERSION)["paths"]["/v1/events/{event_id}"]["get"]
    assert before["responses"]["200"] != after["responses"]["200"]
    assert before["parameters"] == after["parameters"]


def test_error_bodies_match_the_documented_error_schema(noauth_app):
    document = openapi.document()
    for path in ("/v1/aggregates/nope", "/v1/events?status=bad", "/v1/nothing"):
        response = webob.Request.blank(path).get_response(noauth_app)
        assert response.status_int in (400, 404)
        jsonschema.validate(response.json, document["components"]["schemas"]["Error"])


SECRETS = {"db": "s3cr3t-db-pw", "redis": "s3cr3t-redis-pw", "sentinel": "s3cr3t-sentinel-pw"}


def test_no_response_contains_a_secret(seeded_db, tmp_path):
    db_url = "sqlite:///%s/keyvrm.sqlite?password=%s" % (tmp_path, SECRETS["db"])
    app = seed.make_app(seeded_db, overrides={("database", "connection"): db_url,
                                              ("heartbeat", "password"): SECRETS["redis"],
                                              ("heartbeat", "sentinel_password"): SECRETS["sentinel"]})
    bodies = [_get(app, r.path).text for r in _get_routes()]
    bodies.append(webob.Request.blank("/v1/nothing").get_response(app).text)
    for body in bodies:
        for secret in SECRETS.values():
            assert secret not in body
        assert "sqlite:///" not in body


class _DownEngine:
    def __getattr__(self, name):
        def cast(ctxt, **kwargs):
            raise oslo_messaging.MessageDeliveryFailure("broker unreachable")
        return cast


@pytest.mark.parametrize("path, check", [
    ("/v1/recommendations/rec-manual/run",
     lambda db: db_api.get_recommendation(db, "rec-manual")["status"] == "created"),
    ("/v1/cycles", lambda db: db_api.page_cycles(db, 1)[0]["status"] == states.CycleStatus.REQUESTED),
])
def test_request_is_recorded_even_when_the_engine_is_down(seeded_db, path, check):
    app = seed.make_app(seeded_db, rpc=_DownEngine())
    response = webob.Request.blank(path, method="POST").get_response(app)
    assert response.status_int == 202
    assert json.loads(response.text)["engine_notified"] is False
    assert check(seeded_db)


def test_run_and_cycle_requests_wake_the_engine(noauth_app, casts):
    for path in ("/v1/recommendations/rec-manual/run", "/v1/recommendations/rec-auto/cancel", "/v1/cycles"):
        assert webob.Request.blank(path, method="POST").get_response(noauth_app).status_int == 202
    assert casts.casts == [("run_recommendation", {"recommendation_id": "rec-manual"}),
                           ("cancel_recommendation", {"recommendation_id": "rec-auto"}),
                           ("cycle_now", {})]
