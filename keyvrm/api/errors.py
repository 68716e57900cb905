"""The one place that turns an error into an HTTP status and an OpenStack-style error body.

Bodies follow the API working group's errors guideline (as Placement does):
``{"errors": [{"status", "code", "title", "detail", "request_id", "field"?}]}``.
An unreachable database is a 503 with ``Retry-After``, logged once per outage (see
``outage.py``). Unexpected exceptions become a 500 whose detail says nothing about the
internals (no SQL, no database URL); the full error goes to the log with the request id.
"""

import json

from oslo_log import log as logging
from oslo_policy import policy as oslo_policy
import webob
import webob.exc

from keyvrm.db import availability
from keyvrm import exception

LOG = logging.getLogger(__name__)

DATABASE_UNAVAILABLE = "database_unavailable"


def error_body(status, code, detail, request_id=None, field=None):
    """The JSON error document for one error."""
    error = {"status": status, "code": "keyvrm." + code,
             "title": webob.exc.status_map[status].title, "detail": detail,
             "request_id": request_id}
    if field is not None:
        error["field"] = field
    return {"errors": [error]}


def _classify(exc):
    """(status, code, detail, field) for ``exc``."""
    if isinstance(exc, exception.KeyVRMError):
        return exc.http_status, exc.code, exc.message, getattr(exc, "field", None)
    if isinstance(exc, oslo_policy.PolicyNotAuthorized):
        return 403, "policy_not_authorized", str(exc), None
    if isinstance(exc, webob.exc.HTTPException) and exc.status_int < 500:
        code = exc.title.lower().replace(" ", "_")
        return exc.status_int, code, exc.detail or exc.explanation, None
    if availability.is_database_unavailable(exc):
        return 503, DATABASE_UNAVAILABLE, "The database is unavailable; retry later.", None
    return 500, "internal_error", "The server could not complete the request; see its log.", None


def error_response(exc, request_id=None, outages=None):
    """A webob Response carrying ``exc`` as an OpenStack-style error body.

    ``outages`` (an ``outage.OutageLog``) logs refusals for an unreachable database and
    gives their ``Retry-After``; without it they are neither logged nor given one.
    """
    status, code, detail, field = _classify(exc)
    if code == DATABASE_UNAVAILABLE:
        if outages is not None:
            outages.refused(exc, request_id)
    elif status >= 500:
        LOG.error("request %s failed: %s", request_id, exc, exc_info=exc)
    response = webob.Response(status=status, content_type="application/json", charset="utf-8")
    response.text = json.dumps(error_body(status, code, detail, request_id, field))
    if code == DATABASE_UNAVAILABLE and outages is not None:
        response.headers["Retry-After"] = str(outages.retry_after)
    if isinstance(exc, webob.exc.HTTPMethodNotAllowed):
        response.headers["Allow"] = exc.headers.get("Allow", "")
    return response
