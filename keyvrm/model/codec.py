"""Versioned, compact documents for region snapshots: JSON for people, msgpack + zlib for storage.

Layout: ``{"format": "keyvrm.snapshot", "version": 1, "schema": {Type: [field, ...]},
"snapshot": [...]}``. Each record is written as a positional array in the field order the
``schema`` records, so a 200,000-VM snapshot does not repeat its keys 200,000 times. The
same document is written as JSON (``dumps``, the API's raw download) or as msgpack
(``pack``: what the database stores, zlib-compressed), and the stored parts of a snapshot
(``RegionPart``, ``AggregatePart``: see ``keyvrm.model.slices``) are documents of the same
layout whose ``snapshot`` member holds the part.

Reading: a document whose schema is this version's decodes straight into the records
(msgspec, typed: ~0.3 s for 200,000 VMs). Any other schema this version can read -- fields
added later with a default missing from older documents (they take the default), a field
this version retired (``RETIRED_FIELDS``: read and dropped), another field order -- is read
field by field, more slowly. An unknown field or another ``format``/``version`` is refused
with ``SnapshotFormatError``.
"""

from __future__ import annotations

import zlib

import msgspec

from keyvrm.exception import SnapshotFormatError
from keyvrm.model import snapshot as m

FORMAT = "keyvrm.snapshot"
VERSION = 1
COMPRESS_LEVEL = 1  # zlib: 3x faster than 6 at 10,000 hosts, ~15% larger


class RegionPart(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """The part of a stored snapshot outside every aggregate slice, and how the parts interleave.

    ``hypervisor_parts``/``vm_parts``: per hypervisor / VM of the whole snapshot, in its
    order, the part it is stored in (0: this one, i: the i-th aggregate of ``parts``), as
    little-endian unsigned 16-bit numbers.
    """

    snapshot: m.RegionSnapshot
    parts: tuple[str, ...] = ()
    hypervisor_parts: bytes = b""
    vm_parts: bytes = b""


class AggregatePart(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One aggregate's slice: its first ``home_hypervisors`` hosts and ``home_vms`` VMs are stored here only."""

    aggregate: str
    home_hypervisors: int
    home_vms: int
    snapshot: m.RegionSnapshot


_TYPES = (
    m.SourceStatus, m.AvailabilityZone, m.Aggregate, m.ComputeService, m.Inventory,
    m.HugePages, m.HostMetrics, m.VMMetrics, m.Hypervisor, m.Flavor, m.VM,
    m.ServerGroup, m.Image, m.Migration, m.RegionSnapshot, RegionPart, AggregatePart,
)
_BY_NAME = {t.__name__: t for t in _TYPES}

# Fields older documents may hold that this version no longer has: ignored when read.
# VM.shared_storage: never set from Nova; where disks live is the aggregate's storage mode now.
RETIRED_FIELDS = frozenset({("VM", "shared_storage")})

# How a field's value turns back into a record on the field-by-field path: a nested type,
# a tuple of a nested type, a dict of a nested type, or a plain tuple.
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
    (RegionPart, "snapshot"): (_ONE, m.RegionSnapshot),
    (AggregatePart, "snapshot"): (_ONE, m.RegionSnapshot),
}


def _field_kinds(cls):
    kinds = []
    for name, annotation in zip(cls.__struct_fields__, msgspec.structs.fields(cls)):
        nested = _NESTED.get((cls, name))
        if nested is not None:
            kinds.append((name, nested[0], nested[1]))
        else:
            plain_tuple = getattr(annotation.type, "__origin__", annotation.type) is tuple
            kinds.append((name, _TUPLE if plain_tuple else _PLAIN, None))
    return kinds


_KINDS = {cls: _field_kinds(cls) for cls in _TYPES}
SCHEMA = {cls.__name__: list(cls.__struct_fields__) for cls in _TYPES}


class _Document(msgspec.Struct, frozen=True, gc=False):
    format: str
    version: int
    schema: dict
    snapshot: msgspec.Raw


_ENVELOPE = msgspec.msgpack.Decoder(_Document)
_JSON_ENVELOPE = msgspec.json.Decoder(_Document)
_MSGPACK_DECODERS = {t: msgspec.msgpack.Decoder(t) for t in (m.RegionSnapshot, RegionPart, AggregatePart)}
_JSON_DECODERS = {t: msgspec.json.Decoder(t) for t in (m.RegionSnapshot, RegionPart, AggregatePart)}
_MSGPACK = msgspec.msgpack.Encoder()
_JSON = msgspec.json.Encoder()


def _document(payload) -> dict:
    return {"format": FORMAT, "version": VERSION, "schema": SCHEMA, "snapshot": payload}


def to_dict(snapshot: m.RegionSnapshot) -> dict:
    """The JSON-ready document for ``snapshot`` (lists and dicts only, the caller's to change)."""
    document = _document(msgspec.to_builtins(snapshot))
    document["schema"] = {name: list(fields) for name, fields in SCHEMA.items()}
    return document


def dumps(snapshot: m.RegionSnapshot) -> str:
    """Compact JSON text of ``snapshot``."""
    return _JSON.encode(_document(snapshot)).decode("utf-8")


def pack(payload, level: int = COMPRESS_LEVEL) -> bytes:
    """zlib-compressed msgpack of the document holding ``payload`` (a snapshot or a stored part)."""
    return zlib.compress(_MSGPACK.encode(_document(payload)), level)


def compress(snapshot: m.RegionSnapshot, level: int = COMPRESS_LEVEL) -> bytes:
    """The stored form of a whole snapshot (``pack``)."""
    return pack(snapshot, level)


def _check_envelope(document: _Document) -> None:
    if document.format != FORMAT:
        raise SnapshotFormatError("not a KeyVRM snapshot document")
    if document.version != VERSION:
        raise SnapshotFormatError(
            f"snapshot version {document.version!r} not readable (this reads {VERSION})")


def _read(text, envelope, typed, generic, payload_type):
    """Decode one document: typed when its schema is this version's, else field by field."""
    try:
        document = envelope.decode(text)
    except msgspec.DecodeError as exc:
        raise SnapshotFormatError(f"not a KeyVRM snapshot document: {exc}") from None
    _check_envelope(document)
    try:
        if document.schema == SCHEMA:
            return typed[payload_type].decode(document.snapshot)
        plans = _decoders(document.schema)
        return _decode(payload_type, generic(document.snapshot), plans)
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise SnapshotFormatError(f"malformed snapshot document: {exc}") from None


def unpack(blob: bytes, payload_type=m.RegionSnapshot):
    """Inverse of ``pack``: the ``payload_type`` record the stored document holds.

    Also reads what earlier versions stored: zlib-compressed JSON of a whole snapshot.
    """
    try:
        data = zlib.decompress(blob)
    except zlib.error as exc:
        raise SnapshotFormatError(f"stored snapshot is not zlib data: {exc}") from None
    if data[:1] == b"{":
        return _read(data, _JSON_ENVELOPE, _JSON_DECODERS, msgspec.json.decode, payload_type)
    return _read(data, _ENVELOPE, _MSGPACK_DECODERS, msgspec.msgpack.decode, payload_type)


def decompress(blob: bytes) -> m.RegionSnapshot:
    """Inverse of ``compress``."""
    return unpack(blob, m.RegionSnapshot)


def loads(text) -> m.RegionSnapshot:
    """Load a snapshot from its JSON text (str or bytes)."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    return _read(text, _JSON_ENVELOPE, _JSON_DECODERS, msgspec.json.decode, m.RegionSnapshot)


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


def _decoders(schema):
    """Per type: how to build it from a row written with ``schema``'s field order."""
    if not isinstance(schema, dict):
        raise SnapshotFormatError("snapshot schema is not a mapping")
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
        plans[cls] = [(i, name, kinds[name][0], kinds[name][1]) for i, name in enumerate(fields)
                      if name in kinds]
    return plans


def _decode(cls, row, plans):
    fields = plans.get(cls)
    if fields is None:
        raise SnapshotFormatError(f"snapshot schema lacks type {cls.__name__}")
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
