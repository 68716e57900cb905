"""What an endpoint is: one declaration that both the router and the OpenAPI document read.

Each handler module lists its ``ROUTES``; the router dispatches them (authorising the
declared policy rule first) and ``openapi.py`` documents them, so the document cannot
list an endpoint the API lacks, or miss one it has.
"""

import dataclasses
from typing import Callable, Optional


@dataclasses.dataclass(frozen=True)
class Param:
    """A query-string parameter with its JSON schema.

    ``since``: the microversion it came with (None: 1.0); below it the parameter is unknown,
    ignored as unknown parameters are, and not documented.
    """

    name: str
    schema: dict
    description: str
    since: Optional[object] = None


@dataclasses.dataclass(frozen=True)
class Link:
    """A call a successful response leads to (an OpenAPI link): the operation and where its parameters come from.

    ``parameters`` maps the target's path or query parameter to a runtime expression
    on this response, e.g. ``{"event_id": "$response.body#/events/0/id"}``.
    """

    operation_id: str
    parameters: dict


def first(collection, field):
    """The runtime expression of ``field`` of a list response's first item."""
    return "$response.body#/%s/0/%s" % (collection, field)


def member(resource, field):
    """The runtime expression of ``field`` of a show response's ``resource``."""
    return "$response.body#/%s/%s" % (resource, field)


@dataclasses.dataclass(frozen=True)
class Versioned:
    """A response schema that changed in a microversion: ((first version, schema), ...), oldest first."""

    since: tuple

    def at(self, version):
        """The schema of the responses served at ``version``."""
        return [schema for first, schema in self.since if first <= version][-1]


@dataclasses.dataclass(frozen=True)
class Route:
    """One endpoint: method, OpenAPI-style path, handler, policy rule and schemas.

    ``response_schema`` is one schema, or ``Versioned`` when the response changed in a
    microversion (``response_schema_at``); ``request_schema`` too (``request_schema_at``).
    ``since`` is the microversion the endpoint came with (None: 1.0); below it the endpoint
    does not exist (404) and is not documented.
    """

    method: str
    path: str
    handler: Callable
    summary: str
    response_schema: object
    policy: Optional[str] = None
    status: int = 200
    request_schema: object = None
    query: tuple = ()
    errors: tuple = ()
    public: bool = False
    links: tuple = ()
    since: Optional[object] = None

    def served_at(self, version) -> bool:
        """Whether the endpoint exists at microversion ``version``."""
        return self.since is None or version >= self.since

    def query_at(self, version) -> tuple:
        """The query parameters the endpoint reads at microversion ``version``."""
        return tuple(p for p in self.query if p.since is None or version >= p.since)

    @property
    def operation_id(self):
        return self.handler.__name__

    def response_schema_at(self, version):
        """The schema of this endpoint's successful responses at microversion ``version``."""
        if isinstance(self.response_schema, Versioned):
            return self.response_schema.at(version)
        return self.response_schema

    def request_schema_at(self, version):
        """The schema of this endpoint's request bodies at microversion ``version`` (None: no body)."""
        if isinstance(self.request_schema, Versioned):
            return self.request_schema.at(version)
        return self.request_schema

    def body_field_since(self, field):
        """The first microversion whose request body may name the top-level ``field`` (None: none, or unversioned)."""
        if not isinstance(self.request_schema, Versioned):
            return None
        return next((first for first, schema in self.request_schema.since
                     if field in schema.get("properties", {})), None)


@dataclasses.dataclass(frozen=True)
class Reply:
    """What a handler returns when the status is not the route's default or headers are needed."""

    body: object
    status: Optional[int] = None
    headers: dict = dataclasses.field(default_factory=dict)
