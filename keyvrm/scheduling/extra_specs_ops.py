"""Nova's extra-spec matching language: does a host value satisfy a requirement string.

Supported forms, as in Nova: ``= N`` (numeric >=), ``== N``, ``!= N``, ``>= N``, ``<= N``,
``s== v``, ``s!= v``, ``s< v``, ``s<= v``, ``s> v``, ``s>= v``, ``<in> v`` (substring),
``<all-in> a b`` (every word in the value), ``<or> a <or> b``; anything else is an exact
string comparison.
"""

from __future__ import annotations

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


_OPS = {
    "s==": operator.eq, "s!=": operator.ne, "s<": operator.lt,
    "s<=": operator.le, "s>": operator.gt, "s>=": operator.ge,
    "<in>": lambda value, wanted: wanted in value,
    "=": _numeric(operator.ge), "==": _numeric(operator.eq), "!=": _numeric(operator.ne),
    ">=": _numeric(operator.ge), "<=": _numeric(operator.le),
}


def match(value, requirement) -> bool:
    """Return whether a host's ``value`` satisfies the extra-spec ``requirement``.

    As in Nova, an operator compares with the first word after it, and an operator
    without an operand never matches. Unlike Nova, a numeric operator on a value that is
    not a number does not match (Nova raises).
    """
    words = str(requirement).split()
    op = words[0] if words else None
    if op != "<or>" and op not in _OPS and op != "<all-in>":
        return value == requirement
    if value is None:
        return False
    value = str(value)
    args = words[1:]
    if op == "<or>":
        return value in args[0::2]
    if not args:
        return False
    if op == "<all-in>":
        return all(word in value for word in args)
    return bool(_OPS[op](value, args[0]))
