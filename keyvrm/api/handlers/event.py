"""Events: list by aggregate with paging, sort and filters; show one with its reasons and no-target entries."""

import datetime

from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import reason_view
from keyvrm.api import route
from keyvrm.api.schemas import event as schema
from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.model import states
from keyvrm.policies import event as policy

FILTERS = (
    route.Param("aggregate", {"type": "string"}, "Only events of this aggregate."),
    route.Param("kind", {"type": "string", "enum": states.values(states.EventKind)}, "Only HA or LB events."),
    route.Param("status", {"type": "string", "enum": states.values(states.EventStatus)}, "Only this status."),
    route.Param("state", {"type": "string", "enum": states.values(states.EventState)}, "Only this final state."),
    route.Param("sort_key", {"type": "string", "enum": list(db_api.EVENT_SORT_KEYS)},
                "Sort by this field (default created_at)."),
    route.Param("sort_dir", {"type": "string", "enum": ["asc", "desc"]}, "Sort direction (default desc)."),
    route.Param("since", {"type": "string", "minLength": 1},
                "Only events created at or after this time (RFC 3339, e.g. 2026-12-04T00:10:00Z; without an"
                " offset UTC).", since=microversion.PORTAL_LISTS),
)


def since_of(text):
    """The naive UTC datetime an RFC 3339 ``since`` names (UTC without an offset), or ``InvalidField``."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise exception.InvalidField("since", "expected a time as 2026-12-04T00:10:00Z, got %r" % text) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def list_events(call):
    """One page of events, newest first unless sorted otherwise."""
    q = call.query
    limit = paging.page_size(call, q)
    rows = db_api.page_events(call.db, limit, marker=q.get("marker"), aggregate=q.get("aggregate"),
                              kind=q.get("kind"), status=q.get("status"), state=q.get("state"),
                              sort_key=q.get("sort_key", "created_at"), sort_dir=q.get("sort_dir", "desc"),
                              since=since_of(q["since"]) if "since" in q else None)
    return paging.collection(call, "events", [reason_view.shown(r, call.version) for r in rows], limit,
                             lambda r: r["id"])


def show_event(call, event_id):
    """One event with its reasons, its recommendations counted by status and its no-target entries."""
    return {"event": reason_view.shown(db_api.get_event_summary(call.db, event_id), call.version)}


_FIRST = {"event_id": route.first("events", "id")}

ROUTES = [
    route.Route("GET", "/v1/events", list_events, "List events.", schema.EVENTS, policy=policy.LIST,
                query=paging.PARAMS + FILTERS, errors=(400,),
                links=(route.Link("show_event", _FIRST), route.Link("list_recommendations", _FIRST))),
    route.Route("GET", "/v1/events/{event_id}", show_event, "Show an event.", schema.EVENT,
                policy=policy.GET, errors=(404,),
                links=(route.Link("list_recommendations", {"event_id": route.member("event", "id")}),
                       route.Link("show_aggregate", {"name": route.member("event", "aggregate_name")}))),
]
