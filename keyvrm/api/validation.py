"""jsonschema validation of request bodies and query strings; errors name the field."""

import re

import jsonschema

from keyvrm.api import ids
from keyvrm import exception

_QUOTED = re.compile(r"'([^']+)'")


def _field_of(error):
    """The field a jsonschema error is about (the unexpected or missing one, or its path)."""
    if error.validator in ("additionalProperties", "required", "dependentRequired"):
        names = _QUOTED.findall(error.message)
        if names:
            prefix = ".".join(str(p) for p in error.absolute_path)
            return (prefix + "." if prefix else "") + names[0]
    path = ".".join(str(p) for p in error.absolute_path)
    return path or "body"


def validate(schema, document):
    """Raise ``InvalidField`` naming the field if ``document`` does not match ``schema``."""
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        field = _field_of(error)
        raise exception.InvalidField(field, error.message)


def coerce_query(params, query):
    """Query-string values (strings) converted to what ``params`` declare, then validated.

    ``params`` are ``Param`` objects; unknown query parameters are ignored, as in other
    OpenStack APIs.
    """
    values = {}
    for param in params:
        if param.name not in query:
            continue
        raw = query[param.name]
        kind = param.schema.get("type")
        if kind == "integer":
            values[param.name] = ids.ascii_integer(raw)
            if values[param.name] is None:
                raise exception.InvalidField(param.name, "expected an integer, got %r" % raw)
        elif kind == "boolean":
            lowered = raw.lower()
            if lowered not in ("true", "false"):
                raise exception.InvalidField(param.name, "expected true or false, got %r" % raw)
            values[param.name] = lowered == "true"
        else:
            values[param.name] = raw
    validate({"type": "object", "properties": {p.name: p.schema for p in params}}, values)
    return values
