"""Schema pieces every resource uses: nullable types, timestamps, links, error bodies."""


def nullable(schema):
    """``schema`` that also accepts null."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return dict(schema, type=[kind, "null"])
    return {"anyOf": [schema, {"type": "null"}]}


def obj(properties, required=None, additional=False):
    """An object schema; by default every property is required and no other is allowed."""
    return {"type": "object", "properties": properties,
            "required": sorted(properties) if required is None else list(required),
            "additionalProperties": additional}


# Whitespace as ECMA-262 (the regex dialect of JSON Schema, so of every client reading the
# document) and as Python's ``re`` (our validator) define it: they differ on U+FEFF, U+001C-1F
# and U+0085, so ``\S`` would let a client and the server disagree about the same string.
WHITESPACE = "\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
VISIBLE_TEXT = {"type": "string", "minLength": 1, "pattern": "[^%s]" % WHITESPACE,
                "description": "Text with at least one character that is not whitespace."}

TIMESTAMP = {"type": "string", "format": "date-time"}
OPT_TIMESTAMP = nullable(TIMESTAMP)
STRING = {"type": "string"}
OPT_STRING = nullable(STRING)
INTEGER = {"type": "integer"}
OPT_INTEGER = nullable(INTEGER)
NUMBER = {"type": "number"}
OPT_NUMBER = nullable(NUMBER)
BOOLEAN = {"type": "boolean"}
ANY_OBJECT = {"type": "object"}

LINK = obj({"rel": STRING, "href": STRING})
LINKS = {"type": "array", "items": LINK}


def collection(name, item):
    """A paged list: ``{name: [item], links: [...]}``."""
    return obj({name: {"type": "array", "items": item}, "links": LINKS})


ERROR = obj({
    "errors": {"type": "array", "minItems": 1, "items": obj(
        {"status": INTEGER, "code": STRING, "title": STRING, "detail": STRING,
         "request_id": OPT_STRING, "field": STRING},
        required=["status", "code", "title", "detail"])},
})

ACCEPTED = obj({"id": {"type": ["string", "integer"]}, "status": STRING, "engine_notified": BOOLEAN})
