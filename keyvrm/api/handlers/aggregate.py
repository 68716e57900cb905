"""Host aggregates: list (by AZ, with marker/NOOP/last event state), show, change their config."""

from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import reason_view
from keyvrm.api import route
from keyvrm.api.schemas import aggregate as schema
from keyvrm.db import api as db_api
from keyvrm.policies import aggregate as policy

AZ = route.Param("availability_zone", {"type": "string"}, "Only aggregates of this AZ.")
DELETED = route.Param("include_deleted", {"type": "boolean"}, "Also list aggregates Nova no longer has.")
SORT_DIR = route.Param("sort_dir", {"type": "string", "enum": ["asc", "desc"]},
                       "asc (the default): names from the first on; desc: from the last down, so a marker"
                       " gives the page before it.", since=microversion.PORTAL_LISTS)


def _render(values, version):
    """An aggregate as served at ``version``: its events' reasons shown for that version.

    From 1.4 its failover tolerance the last cycle found and whether it is below the reserve;
    from 1.6 its LB level and the thresholds overridden since it was chosen; from 1.10 its
    number of hosts.
    """
    if version < microversion.FAILOVER:
        values.pop("failover_short", None)
        values.pop("failover_tolerance", None)
    for field, since in schema.CONFIG_FIELDS_SINCE.items():
        if version < since:
            values.pop(field, None)
    if version < microversion.LB_LEVEL:
        values.pop("lb_level_overridden", None)
    if version < microversion.PORTAL_LISTS:
        values.pop("host_count", None)
    last = values.get("last_event")
    values["last_event_state"] = last["state"] if last else None
    for key in ("last_event", "current_event"):
        if values.get(key) is not None:
            values[key] = reason_view.shown(values[key], version)
    return values


def list_aggregates(call):
    """One page of aggregates by name."""
    q = call.query
    limit = paging.page_size(call, q)
    rows = db_api.page_aggregates(call.db, limit, marker=q.get("marker"),
                                  availability_zone=q.get("availability_zone"),
                                  include_deleted=q.get("include_deleted", False),
                                  descending=q.get("sort_dir") == "desc")
    return paging.collection(call, "aggregates", [_render(r, call.version) for r in rows], limit,
                             lambda r: r["name"])


def show_aggregate(call, name):
    """One aggregate with its config, newest and current event; from 1.2 its own latest outcome."""
    aggregate = _render(db_api.get_aggregate_summary(call.db, name), call.version)
    if call.version >= microversion.OUTCOMES_OF_EVERY_AGGREGATE:
        aggregate["latest_outcome"] = _latest_outcome(call, name)
    return {"aggregate": aggregate}


def _latest_outcome(call, name):
    latest = db_api.latest_outcome(call.db, name)
    if latest is not None:
        latest["outcomes"] = [reason_view.shown(o, call.version, empty_text="") for o in latest["outcomes"]]
        latest["events"] = [reason_view.shown(e, call.version) for e in latest["events"]]
    return latest


def update_aggregate(call, name):
    """Change marker, NOOP (a reason is required to turn it on) and LB settings (from 1.6 the LB level); audited."""
    db_api.update_aggregate_config(call.db, name, call.body, call.who, request_id=call.context.request_id)
    return show_aggregate(call, name)


_FIRST = {"name": route.first("aggregates", "name")}
_NAME = route.member("aggregate", "name")
_SHOWN = (route.Link("show_aggregate", {"name": _NAME}), route.Link("update_aggregate", {"name": _NAME}),
          route.Link("list_events", {"aggregate": _NAME}), route.Link("list_hypervisors", {"aggregate": _NAME}))

ROUTES = [
    route.Route("GET", "/v1/aggregates", list_aggregates, "List aggregates.", schema.AGGREGATES,
                policy=policy.LIST, query=paging.PARAMS + (AZ, DELETED, SORT_DIR), errors=(400,),
                links=(route.Link("show_aggregate", _FIRST), route.Link("update_aggregate", _FIRST))),
    route.Route("GET", "/v1/aggregates/{name}", show_aggregate, "Show an aggregate.", schema.AGGREGATE,
                policy=policy.GET, errors=(404,), links=_SHOWN[1:]),
    route.Route("PATCH", "/v1/aggregates/{name}", update_aggregate, "Change an aggregate's config.",
                schema.AGGREGATE, policy=policy.UPDATE, request_schema=schema.PATCH, errors=(400, 404),
                links=_SHOWN[:1]),
]
