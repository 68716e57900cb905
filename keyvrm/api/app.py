"""build_app: the keyvrm-api WSGI pipeline.

Outside in: HTTPProxyToWSGI (real scheme/host behind a proxy) -> RequestId -> body size
limit (``[oslo_middleware] max_request_body_size``, refused in the API's error format) -> CORS ->
``/healthcheck`` (oslo.middleware, no auth) -> public paths (version discovery, the
OpenAPI document: no auth) or authentication (auth_token / noauth) -> the router.
"""

from oslo_middleware import cors
from oslo_middleware import healthcheck
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import webob

from keyvrm.api import auth
from keyvrm.api import call
from keyvrm.api import errors
from keyvrm.api import policy
from keyvrm.api import router
from keyvrm.db import session as db_session
from keyvrm.engine import rpcapi
from keyvrm import exception

HEALTHCHECK_PATH = "/healthcheck"


class _PathSplit:
    """Send the health check and public paths around authentication; everything else through it."""

    def __init__(self, protected, public, health, public_paths):
        self.protected, self.public, self.health = protected, public, health
        self.public_paths = public_paths

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "").rstrip("/") or "/"
        if path == HEALTHCHECK_PATH:
            return self.health(environ, start_response)
        if path in self.public_paths:
            return self.public(environ, start_response)
        return self.protected(environ, start_response)


class _BodySizeLimit:
    """oslo.middleware's body size limit, refused as every API error is (errors.py), not in its own format.

    A declared Content-Length over the limit is refused before anything is read; a chunked
    body is read through oslo's ``LimitingReader``, whose refusal reaches the router's handler.
    """

    def __init__(self, app, conf):
        conf.register_opts(sizelimit.OPTS, group="oslo_middleware")
        self.app, self.max_bytes = app, conf.oslo_middleware.max_request_body_size

    def __call__(self, environ, start_response):
        request = webob.Request(environ)
        if request.content_length is not None and request.content_length > self.max_bytes:
            refusal = exception.RequestTooLarge("the request body is %d bytes, more than the %d allowed "
                                                "([oslo_middleware] max_request_body_size)"
                                                % (request.content_length, self.max_bytes))
            return errors.error_response(refusal, environ.get("openstack.request_id"))(environ, start_response)
        if request.content_length is None:
            request.body_file = sizelimit.LimitingReader(request.body_file, self.max_bytes)
        return self.app(environ, start_response)


def build_app(conf, db=None, rpc=None):
    """The WSGI application of keyvrm-api for ``conf``.

    ``db`` defaults to ``[database] connection``; ``rpc`` (an ``EngineAPI``) defaults to
    one on ``[DEFAULT] transport_url`` if that is set, else None (requests are then only
    recorded in the database, where the engine finds them).
    """
    services = call.Services(db=db or db_session.database_from_conf(conf),
                             rpc=rpc if rpc is not None else rpcapi.from_conf(conf),
                             conf=conf, enforcer=policy.enforcer(conf))
    app = router.Router(services, auth.request_context)
    split = _PathSplit(protected=auth.protect(app, conf), public=app,
                       health=healthcheck.Healthcheck(None, conf), public_paths=router.public_paths())
    with_cors = cors.CORS(split, conf)
    with_request_id = request_id.RequestId(_BodySizeLimit(with_cors, conf))
    return http_proxy_to_wsgi.HTTPProxyToWSGI(with_request_id, conf)
