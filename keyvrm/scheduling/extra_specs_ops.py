"""Nova's extra-spec matching language: does a host value satisfy a requirement string.

Supported forms, as in Nova: ``= N`` (numeric >=), ``== N``, ``!= N``, ``>= N``, ``<= N``,
``s== v``, ``s!= v``, ``s< v``, ``s<= v``, ``s> v``, ``s>= v``, ``<in> v`` (substring),
``<all-in> a b`` (every word in a list value), ``<or> a <or> b``; anything else is an
exact string comparison.
"""

from __future__ import annotations

import ast
import operator


def _as_float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _numeric(compare):
    def check(value, wanted):
        have, want = _as_float(value), _as_float(wanted)
        return have is not None and want is not None and compare(have, want)
    return check


def _all_in(value, wanted_words):
    try:
        have = ast.literal_eval(str(value))
    except (ValueError, SyntaxError):
        have = str(value)
    if isinstance(have, str):
        have = [have]
    return all(word in have for word in wanted_words)


_STRING_OPS = {
    "s==": operator.eq, "s!=": operator.ne, "s<": operator.lt,
    "s<=": operator.le, "s>": operator.gt, "s>=": operator.ge,
}
_NUMERIC_OPS = {
    "=": _numeric(operator.ge), "==": _numeric(operator.eq), "!=": _numeric(operator.ne),
    ">=": _numeric(operator.ge), "<=": _numeric(operator.le),
}


def match(value, requirement) -> bool:
    """Return whether a host's ``value`` satisfies the extra-spec ``requirement``."""
    words = str(requirement).split()
    if not words:
        return str(value) == str(requirement)
    op, args = words[0], words[1:]
    if op == "<or>":
        choices = [w for w in words if w != "<or>"]
        return str(value) in choices
    if op == "<in>" and args:
        return " ".join(args) in str(value)
    if op == "<all-in>" and args:
        return _all_in(value, args)
    if op in _STRING_OPS and args:
        return _STRING_OPS[op](str(value), " ".join(args))
    if op in _NUMERIC_OPS and args:
        return _NUMERIC_OPS[op](value, args[0])
    return str(value) == str(requirement)
