"""The LB dial in the API: from microversion 1.6 only, and below it every aggregate answer exactly as at 1.5."""

import json

import pytest
import webob

from keyvrm.api.handlers import aggregate as aggregate_handler
from keyvrm.api import microversion
from keyvrm.api import openapi

NEW_FIELDS = {"lb_level", "lb_level_overridden"}


def _call(app, method, path, version, body=None):
    request = webob.Request.blank(path, method=method)
    request.headers[microversion.HEADER] = "%s %s" % (microversion.SERVICE_TYPE, version)
    if body is not None:
        request.content_type, request.body = "application/json", json.dumps(body).encode()
    return request.get_response(app)


def test_below_1_6_aggregates_have_exactly_the_fields_of_1_5(noauth_app):
    new = _call(noauth_app, "GET", "/v1/aggregates/agg-a", "1.6").json["aggregate"]
    old = _call(noauth_app, "GET", "/v1/aggregates/agg-a", "1.5").json["aggregate"]
    assert NEW_FIELDS <= set(new) and set(old) == set(new) - NEW_FIELDS
    assert {k: v for k, v in new.items() if k not in NEW_FIELDS | {"updated_at"}} == {
        k: v for k, v in old.items() if k != "updated_at"}


@pytest.mark.parametrize("old", ["1.0", "1.4", "1.5"])
def test_no_aggregate_read_below_1_6_has_the_level(noauth_app, old):
    shown = _call(noauth_app, "GET", "/v1/aggregates/agg-a", old).json["aggregate"]
    listed = _call(noauth_app, "GET", "/v1/aggregates", old).json["aggregates"]
    assert not NEW_FIELDS & set(shown) and all(not NEW_FIELDS & set(item) for item in listed)


def test_a_change_of_other_fields_below_1_6_still_works_and_answers_without_the_level(noauth_app):
    response = _call(noauth_app, "PATCH", "/v1/aggregates/agg-b", "1.5", {"lb_overload_threshold": 85})
    assert response.status_int == 200, response.text
    assert response.json["aggregate"]["lb_overload_threshold"] == 85.0
    assert not NEW_FIELDS & set(response.json["aggregate"])


def test_the_openapi_document_offers_lb_level_in_a_change_from_1_6_only():
    def patch_fields(version):
        operation = openapi.document(version=microversion.parse(version))["paths"]["/v1/aggregates/{name}"]["patch"]
        return set(operation["requestBody"]["content"]["application/json"]["schema"]["properties"])
    assert "lb_level" in patch_fields("1.6") and "lb_level" not in patch_fields("1.5")
    assert patch_fields("1.6") - patch_fields("1.5") == {"lb_level"}


def test_an_aggregate_answered_below_1_8_has_no_failback():
    values = {"name": "agg-a", "failback": "auto", "last_event": None, "current_event": None}
    assert "failback" not in aggregate_handler._render(dict(values), microversion.parse("1.7"))
    assert aggregate_handler._render(dict(values), microversion.parse("1.8"))["failback"] == "auto"
