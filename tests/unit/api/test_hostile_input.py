"""Hostile input is a 400 naming the field, never a 500; ids are ASCII digits only."""

import jsonschema
import pytest
import webob

from keyvrm.api import openapi
from tests.unit.api import hostile
from tests.unit.api import seed

ERROR_SCHEMA = openapi.document()["components"]["schemas"]["Error"]


def assert_refused_naming(response, field):
    assert response.status_int == 400, response.text
    jsonschema.validate(response.json, ERROR_SCHEMA)
    assert response.json["errors"][0]["field"] == field


@pytest.mark.parametrize("case", hostile.all_cases(), ids=lambda case: case.name)
def test_hostile_input_is_refused_naming_its_field(noauth_app, case):
    assert_refused_naming(case.send(noauth_app), case.field)


def test_the_table_covers_every_parameter_of_the_issue():
    names = {case.name for case in hostile.all_cases()}
    for expected in ("GET /v1/events/{event_id}, invalid UTF-8 in event_id",
                     "GET /v1/events, a lone 0xFF byte in ?marker",
                     "GET /v1/aggregates, NUL in ?marker",
                     "GET /v1/recommendations, NUL in ?event_id",
                     "POST /v1/vms/{vm_id}/unlock, NUL in vm_id"):
        assert expected in names


@pytest.mark.parametrize("path", [
    "/v1/cycles/%D9%A1",       # ARABIC-INDIC DIGIT ONE: int() reads it as 1
    "/v1/cycles/%EF%BC%91",    # FULLWIDTH DIGIT ONE
    "/v1/cycles/1_0",
    "/v1/cycles/%201",
    "/v1/snapshots/%D9%A1",
])
def test_non_ascii_digits_name_no_row(noauth_app, path):
    assert webob.Request.blank("/v1/cycles/1").get_response(noauth_app).status_int == 200
    assert webob.Request.blank(path).get_response(noauth_app).status_int == 404


@pytest.mark.parametrize("query, field", [("marker=%D9%A1", "marker"), ("limit=%D9%A1", "limit"),
                                          ("limit=" + "9" * 5000, "limit")])
def test_non_ascii_integers_in_the_query_are_refused(noauth_app, query, field):
    assert_refused_naming(webob.Request.blank("/v1/cycles?" + query).get_response(noauth_app), field)


def test_unicode_text_that_is_valid_is_still_accepted(noauth_app):
    case = hostile.Hostile("valid text", "PATCH", "/v1/aggregates/agg-a", None,
                           '{"no_op_mode": true, "no_op_reason": "Wartung \\u00e9\\ud83d\\ude00"}')
    response = case.send(noauth_app)
    assert response.status_int == 200, response.text
    assert response.json["aggregate"]["no_op_reason"] == "Wartung \u00e9\U0001F600"
    two_levels = hostile.Hostile("2 levels", "PATCH", "/v1/config", None, '{"ha_fence_interfaces": ["ipmi"]}')
    assert two_levels.send(noauth_app).status_int == 200


def test_the_nesting_limit_is_the_configured_depth(seeded_db):
    app = seed.make_app(seeded_db, overrides={("api", "max_json_depth"): 3})
    two_levels = hostile.Hostile("2", "PATCH", "/v1/aggregates/agg-a", None, '{"lb_weights": {"cpu": 2}}')
    assert two_levels.send(app).status_int == 200
    four = hostile.Hostile("4", "PATCH", "/v1/config", "a.b.c", '{"a": {"b": {"c": [1]}}}')
    assert_refused_naming(four.send(app), "a.b.c")
