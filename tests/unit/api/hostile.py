"""Hostile requests for the API tests (SQLite and PostgreSQL): each must be a 400 naming its field.

Built from the routes themselves: every path parameter and every string query parameter
with a NUL and with invalid UTF-8, so a new endpoint is covered without editing this
table; then bodies too deep, with a lone surrogate or a NUL.
"""

import dataclasses
import re

import webob

from keyvrm.api import router

PATH_PARAM = re.compile(r"{(\w+)}")
SEEDED = {"name": "agg-a", "event_id": "ev-1", "recommendation_id": "rec-manual", "vm_id": "vm-1",
          "snapshot_id": "1", "cycle_id": "1", "host": "cmp-1"}
BAD_TEXT = {"NUL": "ev%00", "invalid UTF-8": "%C3%28", "a lone 0xFF byte": "%FF"}


@dataclasses.dataclass(frozen=True)
class Hostile:
    """One request, as raw as the wire gives it: ``path`` percent-encoded, ``body`` JSON text."""

    name: str
    method: str
    path: str
    field: str
    body: str = None

    def send(self, app):
        request = webob.Request.blank(self.path, method=self.method)
        request.headers["OpenStack-API-Version"] = "vm-resource-manager latest"  # every endpoint exists there
        if self.body is not None:
            request.body = self.body.encode("utf-8")
            request.content_type = "application/json"
        return request.get_response(app)


def _filled(path, bad_name=None, bad_value=None):
    return PATH_PARAM.sub(lambda mo: bad_value if mo.group(1) == bad_name else SEEDED[mo.group(1)], path)


def parameter_cases():
    """Every path and string query parameter of every route, with each bad text."""
    for route in router.all_routes():
        for label, raw in BAD_TEXT.items():
            for name in PATH_PARAM.findall(route.path):
                yield Hostile("%s %s, %s in %s" % (route.method, route.path, label, name), route.method,
                              _filled(route.path, name, raw), name)
            for param in route.query:
                if param.schema.get("type") == "string":
                    yield Hostile("%s %s, %s in ?%s" % (route.method, route.path, label, param.name),
                                  route.method, "%s?%s=%s" % (_filled(route.path), param.name, raw), param.name)


DEFAULT_MAX_JSON_DEPTH = 32  # [api] max_json_depth
_TOO_DEEP = DEFAULT_MAX_JSON_DEPTH + 1
BODY_CASES = [
    Hostile("a JSON array nested 5,000 deep", "PATCH", "/v1/config", "body", "[" * 5000 + "]" * 5000),
    Hostile("a JSON object nested 5,000 deep", "PATCH", "/v1/config", "body",
            '{"a": ' * 5000 + "1" + "}" * 5000),
    Hostile("an object one level deeper than allowed", "PATCH", "/v1/config", ".".join(["a"] * (_TOO_DEEP - 1)),
            '{"a": ' * _TOO_DEEP + "{}" + "}" * _TOO_DEEP),
    Hostile("a lone surrogate in a string", "PATCH", "/v1/aggregates/agg-a", "no_op_reason",
            '{"no_op_mode": true, "no_op_reason": "\\ud800"}'),
    Hostile("a NUL in a string", "PATCH", "/v1/aggregates/agg-a", "no_op_reason",
            '{"no_op_mode": true, "no_op_reason": "maintenance\\u0000"}'),
    # U+FEFF is whitespace to the document's (ECMA-262) pattern but not to Python's: found by schemathesis
    Hostile("a NOOP reason of only a byte order mark", "PATCH", "/v1/aggregates/agg-a", "no_op_reason",
            '{"no_op_mode": true, "no_op_reason": "\\ufeff"}'),
    Hostile("a NOOP reason of only separators Python calls whitespace", "PATCH", "/v1/aggregates/agg-a",
            "no_op_reason", '{"no_op_mode": true, "no_op_reason": "\\u001c\\u0085 "}'),
    Hostile("a NUL in a list item", "PATCH", "/v1/config", "ha_fence_interfaces.0",
            '{"ha_fence_interfaces": ["ipmi\\u0000"]}'),
    Hostile("a lone surrogate in a key", "PATCH", "/v1/config", "lb_weights", '{"lb_weights": {"\\udfff": 1}}'),
    Hostile("a NUL in a query parameter's name", "GET", "/v1/events?a%00=1", "query"),
]


def all_cases():
    return list(parameter_cases()) + BODY_CASES
