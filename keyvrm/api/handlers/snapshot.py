"""Region snapshots: list and show summaries; raw download for admins."""

from keyvrm.api import ids
from keyvrm.api import paging
from keyvrm.api import route
from keyvrm.api.schemas import snapshot as schema
from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.model import codec
from keyvrm.policies import snapshot as policy


def _snapshot_id(value):
    return ids.parse_id(value, lambda v: exception.NotFound(f"snapshot {v} not found"))


def list_snapshots(call):
    """One page of snapshot summaries, newest first."""
    q = call.query
    limit = paging.page_size(call, q)
    marker = q.get("marker")
    rows = db_api.page_snapshots(call.db, limit, marker=None if marker is None else _marker(marker))
    return paging.collection(call, "snapshots", rows, limit, lambda r: str(r["id"]))


def _marker(value):
    return ids.parse_id(value, lambda v: exception.InvalidField("marker", "expected a snapshot id, got %r" % v))


def show_snapshot(call, snapshot_id):
    """One snapshot's summary: when, how big, which sources answered."""
    return {"snapshot": db_api.get_snapshot_summary(call.db, _snapshot_id(snapshot_id))}


def download_snapshot(call, snapshot_id):
    """The whole snapshot document as KeyVRM planned from it."""
    return codec.to_dict(db_api.load_snapshot(call.db, _snapshot_id(snapshot_id)))


_BASE = "/v1/snapshots/{snapshot_id}"
ROUTES = [
    route.Route("GET", "/v1/snapshots", list_snapshots, "List snapshots.", schema.SNAPSHOTS,
                policy=policy.LIST, query=paging.PARAMS, errors=(400,),
                links=(route.Link("show_snapshot", {"snapshot_id": route.first("snapshots", "id")}),
                       route.Link("download_snapshot", {"snapshot_id": route.first("snapshots", "id")}))),
    route.Route("GET", _BASE, show_snapshot, "Show a snapshot summary.", schema.SNAPSHOT,
                policy=policy.GET, errors=(404,),
                links=(route.Link("download_snapshot", {"snapshot_id": route.member("snapshot", "id")}),)),
    route.Route("GET", _BASE + "/data", download_snapshot, "Download a raw snapshot (admin only).",
                schema.RAW, policy=policy.DOWNLOAD, errors=(404,)),
]
