"""Dispatch: read the microversion, match the route, authorise its policy, validate inputs, call the handler, render."""

import routes
import webob
import webob.exc

from keyvrm.api import call as api_call
from keyvrm.api import errors
from keyvrm.api.handlers import aggregate
from keyvrm.api.handlers import aggregate_failover
from keyvrm.api.handlers import aggregate_load
from keyvrm.api.handlers import aggregate_what_if
from keyvrm.api.handlers import availability_zone
from keyvrm.api.handlers import config
from keyvrm.api.handlers import cycle
from keyvrm.api.handlers import event
from keyvrm.api.handlers import hypervisor
from keyvrm.api.handlers import operation
from keyvrm.api.handlers import recommendation
from keyvrm.api.handlers import root
from keyvrm.api.handlers import snapshot
from keyvrm.api.handlers import vm
from keyvrm.api import inputs
from keyvrm.api import microversion
from keyvrm.api import outage
from keyvrm.api import route as api_route
from keyvrm.api import serialize
from keyvrm.api import validation
from keyvrm import exception

HANDLER_MODULES = (root, config, availability_zone, aggregate, aggregate_load, aggregate_what_if,
                   aggregate_failover, event, recommendation, operation, vm, hypervisor, snapshot, cycle)
JSON_TYPES = ("application/json", "application/merge-patch+json")


def all_routes():
    """Every endpoint of the API, in a stable order."""
    return [r for module in HANDLER_MODULES for r in module.ROUTES]


def public_paths():
    """Paths anyone may read without a token (version discovery, the OpenAPI document)."""
    return frozenset(r.path for r in all_routes() if r.public)


def _mapper():
    """A Routes mapper whose matches name the declared path, and {path: {method: Route}}."""
    mapper = routes.Mapper()
    by_path = {}
    for route in all_routes():
        by_path.setdefault(route.path, {})[route.method] = route
    for path in by_path:
        mapper.connect(path, declared_path=path)
    return mapper, by_path


def _refuse_fields_of_later_versions(route, schema, document, version):
    """``InvalidField`` naming a body field a later microversion than ``version`` accepts, with the one to ask for."""
    if not isinstance(document, dict):
        return
    for field in document:
        since = route.body_field_since(field)
        if field not in schema.get("properties", {}) and since is not None and since > version:
            raise exception.InvalidField(field, "%s is accepted from microversion %s; this request is served at"
                                         " %s (send %s: %s %s)" % (field, since, version, microversion.HEADER,
                                                                   microversion.SERVICE_TYPE, since))


def _body(request, route, max_depth, version):
    schema = route.request_schema_at(version)
    if schema is None:
        return None
    if not request.body:
        if route.method == "PATCH":
            raise exception.InvalidField("body", "a JSON object of the fields to change is required")
        return {}
    if request.content_type not in JSON_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType("send application/json, not %s" % request.content_type)
    document = inputs.parse_json(request.body, max_depth)
    _refuse_fields_of_later_versions(route, schema, document, version)
    validation.validate(schema, document)
    return document


class Router:
    """The KeyVRM WSGI application behind the middleware."""

    def __init__(self, services, context_factory):
        self.services = services
        self.context_factory = context_factory
        self.mapper, self.routes = _mapper()
        self.outages = outage.OutageLog(services.conf.api.retry_after)

    def __call__(self, environ, start_response):
        request = webob.Request(environ)
        request_id = environ.get("openstack.request_id")
        version = None
        try:
            version = microversion.requested(request.headers)
            response = self._dispatch(request, version)
        except Exception as exc:  # every error leaves through errors.py, nowhere else
            response = errors.error_response(exc, request_id, self.outages)
        response.headers.update(microversion.response_headers(version))
        return response(environ, start_response)

    def _dispatch(self, request, version):
        path = inputs.request_path(request.environ).rstrip("/") or "/"
        match = self.mapper.match(path)
        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        if match is None:
            raise webob.exc.HTTPNotFound("no such resource: %s" % shown)
        methods = {method: r for method, r in self.routes[match.pop("declared_path")].items()
                   if r.served_at(version)}
        if not methods:
            raise webob.exc.HTTPNotFound("no such resource at microversion %s: %s (ask for a later one)"
                                         % (version, shown))
        route = methods.get(request.method)
        if route is None:
            error = webob.exc.HTTPMethodNotAllowed("%s is not allowed on %s" % (request.method, path))
            error.headers["Allow"] = ", ".join(sorted(methods))
            raise error
        context = self.context_factory(request.environ)
        if route.policy:
            self.services.enforcer.authorize(route.policy, {}, context, do_raise=True)
        inputs.check_path_params(match)
        inputs.check_query_string(request.environ.get("QUERY_STRING", ""))
        query = validation.coerce_query(route.query_at(version), request.GET)
        call = api_call.Call(request, self.services, context, query,
                             _body(request, route, self.services.conf.api.max_json_depth, version), version)
        result = route.handler(call, **match)
        if not route.public:  # public routes do not read the database
            self.outages.served()
        reply = result if isinstance(result, api_route.Reply) else api_route.Reply(result)
        response = webob.Response(status=reply.status or route.status, content_type="application/json",
                                  charset="utf-8")
        response.text = serialize.dumps(reply.body)
        response.headers.update(reply.headers)
        return response
