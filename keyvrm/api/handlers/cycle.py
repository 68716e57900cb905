"""Cycles: history with reasons, and "cycle now" (recorded, then the engine is woken; 202)."""

from keyvrm.api import ids
from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import reason_view
from keyvrm.api import route
from keyvrm.api.schemas import common
from keyvrm.api.schemas import cycle as schema
from keyvrm.db import api as db_api
from keyvrm import exception
from keyvrm.model import states
from keyvrm.policies import cycle as policy

STATUS = route.Param("status", {"type": "string", "enum": states.values(states.CycleStatus)},
                     "Only cycles of this status.")


def list_cycles(call):
    """One page of cycles, newest first."""
    q = call.query
    limit = paging.page_size(call, q)
    marker = q.get("marker")
    if marker is not None:
        marker = ids.parse_id(marker, lambda v: exception.InvalidField("marker", "expected a cycle id, got %r" % v))
    rows = db_api.page_cycles(call.db, limit, marker=marker, status=q.get("status"))
    return paging.collection(call, "cycles", rows, limit, lambda r: str(r["id"]))


def show_cycle(call, cycle_id):
    """One cycle with its reason, the number of events it created and its aggregates' no-op outcomes."""
    ident = ids.parse_id(cycle_id, lambda v: exception.NotFound(f"cycle {v} not found"))
    cycle = db_api.get_cycle_summary(call.db, ident)
    outcomes = cycle["outcomes"]
    if call.version < microversion.OUTCOMES_OF_EVERY_AGGREGATE:  # the HA and LB runs' only
        outcomes = [o for o in outcomes if o["kind"] in tuple(states.EventKind)]
    cycle["outcomes"] = [reason_view.shown(o, call.version, empty_text="") for o in outcomes]
    return {"cycle": cycle}


def request_cycle(call):
    """Record a cycle request, then wake the engine; the cycle is read later from the list."""
    cycle_id = db_api.request_cycle(call.db, call.who)
    notified = call.notify_engine("cycle_now")
    return route.Reply({"id": cycle_id, "status": states.CycleStatus.REQUESTED.value, "engine_notified": notified},
                       headers={"Location": "%s/v1/cycles/%d" % (call.request.application_url, cycle_id)})


ROUTES = [
    route.Route("GET", "/v1/cycles", list_cycles, "List cycles.", schema.CYCLES, policy=policy.LIST,
                query=paging.PARAMS + (STATUS,), errors=(400,),
                links=(route.Link("show_cycle", {"cycle_id": route.first("cycles", "id")}),)),
    route.Route("GET", "/v1/cycles/{cycle_id}", show_cycle, "Show a cycle.", schema.CYCLE,
                policy=policy.GET, errors=(404,)),
    route.Route("POST", "/v1/cycles", request_cycle, "Request a cycle now.", common.ACCEPTED,
                policy=policy.RUN, status=202, request_schema=schema.REQUEST, errors=(400,),
                links=(route.Link("show_cycle", {"cycle_id": "$response.body#/id"}),)),
]
