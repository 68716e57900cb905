"""Version discovery (``/``, ``/v1``) and the OpenAPI document (``/v1/openapi.json``)."""

from keyvrm.api import microversion
from keyvrm.api import route
from keyvrm.api.schemas import root as schema

VERSION_ID = "v1"


def _version(call):
    """v1 with the microversions this server serves (a client picks one in [min_version, max_version])."""
    return {"id": VERSION_ID, "status": "CURRENT", "min_version": str(microversion.MIN_VERSION),
            "max_version": str(microversion.MAX_VERSION),
            "links": [{"rel": "self", "href": call.request.application_url + "/v1"}]}


def list_versions(call):
    """Every API version this server offers."""
    return {"versions": [_version(call)]}


def show_version(call):
    """The v1 version document."""
    return {"version": _version(call)}


def show_openapi(call):
    """The OpenAPI 3.1 description of this API at the request's microversion, built from the routes themselves."""
    from keyvrm.api import openapi  # here, not at the top: openapi reads the router, which imports us
    return openapi.document(call.request.application_url, call.version)


ROUTES = [
    route.Route("GET", "/", list_versions, "List API versions.", schema.VERSIONS, public=True),
    route.Route("GET", "/v1", show_version, "Show the v1 version document.", schema.VERSION_DOC, public=True),
    route.Route("GET", "/v1/openapi.json", show_openapi, "The OpenAPI document of v1.", schema.OPENAPI,
                public=True),
]
