"""Request text every layer can take: UTF-8, no NUL, no lone surrogate, bounded nesting; errors name the field.

PostgreSQL refuses NUL in text, no encoder takes a lone surrogate, and a deeply nested
document overflows the parser's and the validator's recursion. Each check here turns
such input into ``InvalidField`` before it reaches the database or jsonschema.
"""

import json
import re
import urllib.parse

from keyvrm import exception

_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


def _text_problem(text):
    """Why ``text`` cannot be stored, or None; surrogates stand for invalid UTF-8 or lone surrogates."""
    found = _NOT_TEXT.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "contains a NUL character, which is not allowed"
    return "is not valid Unicode text (invalid UTF-8 or a lone surrogate)"


def check_text(field, text):
    """Raise ``InvalidField(field)`` if ``text`` holds a NUL or a surrogate."""
    problem = _text_problem(text)
    if problem is not None:
        raise exception.InvalidField(field, problem)


def _check_key(field, key):
    """Refuse a key (of an object, or a query parameter's name) under ``field``, which names its container."""
    problem = _text_problem(key)
    if problem is not None:
        raise exception.InvalidField(field, "a key " + problem)


def request_path(environ):
    """PATH_INFO as text; bytes that are not UTF-8 become surrogates, for ``check_text`` to refuse.

    WSGI servers pass the path as latin-1 characters, one per byte (PEP 3333).
    """
    raw = environ.get("PATH_INFO", "")
    try:
        data = raw.encode("latin-1")
    except UnicodeEncodeError:
        return raw
    return data.decode("utf-8", "surrogateescape")


def check_path_params(params):
    """Refuse a path parameter (``{name: text}`` of the matched route) that is not storable text."""
    for name, value in params.items():
        check_text(name, value)


def _query_pairs(query_string):
    """(name, value) text pairs of a query string, split as webob splits it; bad UTF-8 as surrogates."""
    data = query_string.encode("latin-1", "replace").replace(b"+", b" ")
    for item in re.split(b"[&;]", data):
        if item:
            name, _, value = item.partition(b"=")
            yield tuple(urllib.parse.unquote_to_bytes(part).decode("utf-8", "surrogateescape")
                        for part in (name, value))


def check_query_string(query_string):
    """Refuse a query parameter whose name or value is not UTF-8 or holds a NUL; the error names it."""
    for name, value in _query_pairs(query_string):
        _check_key("query", name)
        check_text(name, value)


def _path(parts):
    return ".".join(str(p) for p in parts) or "body"


def _check_document(document, max_depth):
    """Walk ``document`` without recursion: depth and every key and string value."""
    stack = [(document, (), 1)]
    while stack:
        value, parts, depth = stack.pop()
        if isinstance(value, str):
            check_text(_path(parts), value)
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > max_depth:
            raise exception.InvalidField(_path(parts), "nested deeper than %d levels" % max_depth)
        if isinstance(value, dict):
            for key, item in value.items():
                _check_key(_path(parts), key)
                stack.append((item, parts + (key,), depth + 1))
        else:
            stack.extend((item, parts + (index,), depth + 1) for index, item in enumerate(value))


def parse_json(body, max_depth):
    """The JSON document of a request body, or ``InvalidField("body" or the field)`` if unusable.

    Objects and lists may nest ``max_depth`` levels (``[api] max_json_depth``).
    """
    try:
        document = json.loads(body)
    except RecursionError:
        raise exception.InvalidField("body", "nested deeper than %d levels" % max_depth) from None
    except ValueError as exc:
        raise exception.InvalidField("body", "not valid JSON: %s" % exc) from None
    _check_document(document, max_depth)
    return document
