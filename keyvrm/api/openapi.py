"""The OpenAPI 3.1 document of v1 at one microversion, generated from the route declarations (never hand-written)."""

import re

from keyvrm.api import microversion
from keyvrm.api import router
from keyvrm.api.schemas import common

_PATH_PARAM = re.compile(r"{(\w+)}")
_VERSION_HEADER = {
    "name": microversion.HEADER, "in": "header", "required": False, "schema": {"type": "string"},
    "description": "The microversion to serve: `%s X.Y` or `%s latest`; without it, the minimum."
                   " The version document (`GET /v1`) gives the minimum and maximum."
                   % (microversion.SERVICE_TYPE, microversion.SERVICE_TYPE)}
_SERVED_HEADERS = {
    microversion.HEADER: {"description": "The microversion the response was served at: `%s X.Y`."
                                         % microversion.SERVICE_TYPE, "schema": {"type": "string"}},
    "Vary": {"description": "Names `%s`: responses differ by microversion." % microversion.HEADER,
             "schema": {"type": "string"}}}


def _parameters(route, version):
    params = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
              for name in _PATH_PARAM.findall(route.path)]
    params += [{"name": p.name, "in": "query", "required": False, "schema": p.schema,
                "description": p.description} for p in route.query_at(version)]
    return params + [_VERSION_HEADER]


def _error_response(description):
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


_ERROR_TEXT = {400: "Bad request: the error names the field.", 401: "Not authenticated.",
               403: "Not allowed by policy.", 404: "Not found.",
               406: "The requested microversion is not served here (see the version document).",
               409: "Conflict with the current state.",
               413: "The request body is larger than [oslo_middleware] max_request_body_size.",
               503: "The database is unavailable; retry after the seconds in Retry-After."}


def _links(route, by_operation_id, version):
    """The OpenAPI links of ``route``'s success response; each must name a route and its parameters."""
    links = {}
    for link in route.links:
        target = by_operation_id.get(link.operation_id)
        if target is None:
            raise ValueError("%s links to unknown operation %s" % (route.operation_id, link.operation_id))
        unknown = set(link.parameters) - {p["name"] for p in _parameters(target, version)}
        if unknown:
            raise ValueError("%s links to %s with unknown parameters %s"
                             % (route.operation_id, link.operation_id, sorted(unknown)))
        links[link.operation_id] = {"operationId": link.operation_id, "parameters": dict(link.parameters)}
    return links


def _operation(route, by_operation_id, version):
    responses = {str(route.status): {"description": route.summary, "headers": _SERVED_HEADERS, "content": {
        "application/json": {"schema": route.response_schema_at(version)}}}}
    if route.links:
        responses[str(route.status)]["links"] = _links(route, by_operation_id, version)
    # any request may name a malformed microversion (400) or one not served here (406); any
    # other input may be refused too: not UTF-8, a NUL, nested too deep
    codes = set(route.errors) | {400, 406}
    if route.request_schema is not None:
        codes.add(413)
    if not route.public:
        codes |= {401, 403, 503}
    for code in sorted(codes):
        responses[str(code)] = _error_response(_ERROR_TEXT[code])
    if 503 in codes:
        responses["503"]["headers"] = {"Retry-After": {"description": "Seconds to wait before retrying.",
                                                       "schema": {"type": "integer"}}}
    if 401 in codes:  # written by keystonemiddleware, in its own format
        responses["401"] = {"description": _ERROR_TEXT[401]}
    operation = {"operationId": route.operation_id, "summary": route.summary,
                 "parameters": _parameters(route, version), "responses": responses}
    if route.policy:
        operation["description"] = "Policy rule: `%s`." % route.policy
    if route.public:
        operation["security"] = []
    if route.request_schema is not None:
        operation["requestBody"] = {"required": route.method == "PATCH", "content": {
            "application/json": {"schema": route.request_schema_at(version)}}}
    return operation


def document(server_url="", version=microversion.MAX_VERSION):
    """The whole document at microversion ``version``, with ``server_url`` as its server."""
    paths = {}
    routes = [r for r in router.all_routes() if r.served_at(version)]
    by_operation_id = {r.operation_id: r for r in routes}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, by_operation_id, version)
    return {
        "openapi": "3.1.0",
        "info": {"title": "KeyVRM API", "version": str(version),
                 "description": "Fencing, evacuation and load balancing of an OpenStack region's VMs."
                                " This document describes microversion %s (`%s: %s %s`); ask for it"
                                " with another version in that header to read that version's."
                                % (version, microversion.HEADER, microversion.SERVICE_TYPE, version)},
        "servers": [{"url": server_url or "/"}],
        "paths": paths,
        "components": {
            "schemas": {"Error": common.ERROR},
            "securitySchemes": {"keystone": {"type": "apiKey", "in": "header", "name": "X-Auth-Token"}},
        },
        "security": [{"keystone": []}],
    }
