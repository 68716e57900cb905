"""Versioned, compact JSON for region snapshots (and zlib for storing them).

Layout: ``{"format": "keyvrm.snapshot", "version": 1, "schema": {Type: [field, ...]},
"snapshot": [...]}``. Each dataclass is written as a positional list in the field order
the ``schema`` records, so a 200,000-VM snapshot does not repeat its keys 200,000 times.
A reader accepts any document whose schema's fields it knows: fields added later with a
default may be missing from older documents (they take the default); a field this version
retired (``RETIRED_FIELDS``) is read and dropped; an unknown field or another
``format``/major ``version`` is refused with ``SnapshotFormatError``.
"""

from __future__ import annotations

import dataclasses
import json
import typing
import zlib

from keyvrm.exception import SnapshotFormatError
from keyvrm.model import snapshot as m

FORMAT = "keyvrm.snapshot"
VERSION = 1

_TYPES = (
    m.SourceStatus, m.AvailabilityZone, m.Aggregate, m.ComputeService, m.Inventory,
    m.HugePages, m.HostMetrics, m.VMMetrics, m.Hypervisor, m.Flavor, m.VM,
    m.ServerGroup, m.Image, m.Migration, m.RegionSnapshot,
)
_BY_NAME = {t.__name__: t for t in _TYPES}

# Fields older documents may hold that this version no longer has: ignored when read.
# VM.shared_storage: never set from Nova; where disks live is the aggregate's storage mode now.
RETIRED_FIELDS = frozenset({("VM", "shared_storage")})

# How a field's JSON value turns back into Python: a nested type, a tuple of a nested
# type, a dict of a nested type, or a plain tuple. Built from the type hints once.
_PLAIN, _ONE, _TUPLE_OF, _DICT_OF, _TUPLE = range(5)

_NESTED = {
    (m.Hypervisor, "service"): (_ONE, m.ComputeService),
    (m.Hypervisor, "inventories"): (_DICT_OF, m.Inventory),
    (m.Hypervisor, "hugepages"): (_TUPLE_OF, m.HugePages),
    (m.Hypervisor, "metrics"): (_ONE, m.HostMetrics),
    (m.VM, "flavor"): (_ONE, m.Flavor),
    (m.VM, "metrics"): (_ONE, m.VMMetrics),
    (m.RegionSnapshot, "availability_zones"): (_TUPLE_OF, m.AvailabilityZone),
    (m.RegionSnapshot, "aggregates"): (_TUPLE_OF, m.Aggregate),
    (m.RegionSnapshot, "hypervisors"): (_TUPLE_OF, m.Hypervisor),
    (m.RegionSnapshot, "vms"): (_TUPLE_OF, m.VM),
    (m.RegionSnapshot, "server_groups"): (_TUPLE_OF, m.ServerGroup),
    (m.RegionSnapshot, "images"): (_TUPLE_OF, m.Image),
    (m.RegionSnapshot, "migrations"): (_TUPLE_OF, m.Migration),
    (m.RegionSnapshot, "sources"): (_DICT_OF, m.SourceStatus),
}


def _field_kinds(cls):
    hints = typing.get_type_hints(cls)
    kinds = []
    for f in dataclasses.fields(cls):
        nested = _NESTED.get((cls, f.name))
        if nested is None:
            kinds.append((f.name, _TUPLE if hints[f.name] is tuple else _PLAIN, None))
        else:
            kinds.append((f.name, nested[0], nested[1]))
    return kinds


_KINDS = {cls: _field_kinds(cls) for cls in _TYPES}
SCHEMA = {cls.__name__: [name for name, _, _ in _KINDS[cls]] for cls in _TYPES}


def _encode(obj):
    cls = type(obj)
    row = []
    for name, kind, sub in _KINDS[cls]:
        value = getattr(obj, name)
        if value is None or kind in (_PLAIN, _TUPLE):
            row.append(value)
        elif kind == _ONE:
            row.append(_encode(value))
        elif kind == _TUPLE_OF:
            row.append([_encode(v) for v in value])
        else:
            row.append({k: _encode(v) for k, v in value.items()})
    return row


def to_dict(snapshot: m.RegionSnapshot) -> dict:
    """The JSON-ready document for ``snapshot``."""
    return {"format": FORMAT, "version": VERSION, "schema": SCHEMA,
            "snapshot": _encode(snapshot)}


def dumps(snapshot: m.RegionSnapshot) -> str:
    """Compact JSON text of ``snapshot``."""
    return json.dumps(to_dict(snapshot), separators=(",", ":"), ensure_ascii=False)


def _decoders(schema):
    """Per type: how to build it from a row written with ``schema``'s field order."""
    plans = {}
    for type_name, fields in schema.items():
        cls = _BY_NAME.get(type_name)
        if cls is None:
            raise SnapshotFormatError(f"unknown type {type_name!r} in snapshot schema")
        kinds = {name: (kind, sub) for name, kind, sub in _KINDS[cls]}
        unknown = [f for f in fields if f not in kinds and (type_name, f) not in RETIRED_FIELDS]
        if unknown:
            raise SnapshotFormatError(
                f"snapshot field(s) {', '.join(unknown)} of {type_name} unknown to this version")
        plan = [(i, name, kinds[name][0], kinds[name][1]) for i, name in enumerate(fields)
                if name in kinds]
        same_order = list(fields) == [name for name, _, _ in _KINDS[cls]]
        positional = ([(i, kind, sub) for i, _, kind, sub in plan if kind != _PLAIN]
                      if same_order else None)
        plans[cls] = (plan, positional)
    return plans


def _decode(cls, row, plans):
    plan = plans.get(cls)
    if plan is None:
        raise SnapshotFormatError(f"snapshot schema lacks type {cls.__name__}")
    fields, positional = plan
    if positional is not None:
        # The common case: the document's field order is this class's; most fields plain.
        if not positional:
            return cls(*row)
        values = list(row)
        for i, kind, sub in positional:
            value = values[i]
            if value is not None:
                values[i] = _convert(value, kind, sub, plans)
        return cls(*values)
    kwargs = {}
    for i, name, kind, sub in fields:
        value = row[i]
        plain = value is None or kind == _PLAIN
        kwargs[name] = value if plain else _convert(value, kind, sub, plans)
    return cls(**kwargs)


def _convert(value, kind, sub, plans):
    if kind == _TUPLE:
        return tuple(value)
    if kind == _ONE:
        return _decode(sub, value, plans)
    if kind == _TUPLE_OF:
        return tuple([_decode(sub, v, plans) for v in value])
    return {k: _decode(sub, v, plans) for k, v in value.items()}


def from_dict(document: dict) -> m.RegionSnapshot:
    """Load a document written by ``to_dict`` (this or an older minor layout)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise SnapshotFormatError("not a KeyVRM snapshot document")
    if document.get("version") != VERSION:
        raise SnapshotFormatError(
            f"snapshot version {document.get('version')!r} not readable (this reads {VERSION})")
    try:
        plans = _decoders(document["schema"])
        return _decode(m.RegionSnapshot, document["snapshot"], plans)
    except (KeyError, IndexError, TypeError) as exc:
        raise SnapshotFormatError(f"malformed snapshot document: {exc}") from None


def loads(text) -> m.RegionSnapshot:
    """Load a snapshot from its JSON text (str or bytes)."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise SnapshotFormatError(f"snapshot is not JSON: {exc}") from None
    return from_dict(document)


def compress(snapshot: m.RegionSnapshot, level: int = 6) -> bytes:
    """zlib-compressed JSON, as ``region_data`` stores it."""
    return zlib.compress(dumps(snapshot).encode("utf-8"), level)


def decompress(blob: bytes) -> m.RegionSnapshot:
    """Inverse of ``compress``."""
    try:
        text = zlib.decompress(blob)
    except zlib.error as exc:
        raise SnapshotFormatError(f"stored snapshot is not zlib data: {exc}") from None
    return loads(text)
