"""Schemas of an event's or a cycle outcome's reasons: text up to microversion 1.0, a list of entries from 1.1."""

from keyvrm.api import microversion
from keyvrm.api import route
from keyvrm.api.schemas import common

ENTRY = common.obj({
    "code": dict(common.STRING, description="a stable reason code (overloaded, no_target, busy, ...)"),
    "message": dict(common.STRING, description="the sentence an operator reads"),
    "host": dict(common.OPT_STRING, description="the hypervisor the reason is about, if one"),
    "vm_id": dict(common.OPT_STRING, description="the VM the reason is about, if one"),
    "details": {"type": "object", "additionalProperties": {"type": ["number", "string", "boolean", "null"]},
                "description": "the reason's figures, e.g. syn_score and threshold, cpu and cpu_ceiling,"
                               " or hosts rejected per check"}})
ENTRIES = {"type": "array", "items": ENTRY,
           "description": "ordered by the ranking of codes (errors, then findings, then recommendations_final,"
                          " then notes on how the run planned), each code's entries together; the first"
                          " code is reason_code. One entry per (code, host, vm_id); at most a bounded"
                          " number per code (more_reasons counts the rest)."}
MORE = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1},
        "description": "per code, how many entries the bound left out of reasons ({} when none)"}
TEXT = dict(common.OPT_STRING, description="the reasons as one line, [code] message; ... (microversion 1.0)")


def fields(version, text=TEXT) -> dict:
    """The reason fields of a record served at ``version``: ``reason`` text, or ``reasons`` and ``more_reasons``."""
    if version < microversion.REASON_LIST:
        return {"reason": text}
    return {"reasons": ENTRIES, "more_reasons": MORE}


def versioned(build) -> route.Versioned:
    """``build(version)``'s schema at every microversion."""
    return route.Versioned(tuple((version, build(version))
                                 for version in map(microversion.parse, microversion.VERSIONS)))
