"""Recommendations: list by event/status, show with load calculation (from 1.9 with the newest journal line), run
and cancel (202)."""

from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import route
from keyvrm.api.schemas import common
from keyvrm.api.schemas import recommendation as schema
from keyvrm.db import api as db_api
from keyvrm.model import states
from keyvrm.policies import recommendation as policy

FILTERS = (
    route.Param("event_id", {"type": "string"}, "Only recommendations of this event."),
    route.Param("status", {"type": "string", "enum": states.values(states.RecommendationStatus)},
                "Only this status."),
    route.Param("vm_id", {"type": "string"}, "Only recommendations for this VM."),
)


def _with_latest_operation(call):
    """Whether the call's microversion shows each recommendation's newest journal line (1.9)."""
    return call.version >= microversion.LATEST_OPERATION


def list_recommendations(call):
    """One page of recommendations, oldest first (from 1.9 each with its newest journal line, in the same query)."""
    q = call.query
    limit = paging.page_size(call, q)
    rows = db_api.page_recommendations(call.db, limit, marker=q.get("marker"), event_id=q.get("event_id"),
                                       status=q.get("status"), vm_id=q.get("vm_id"),
                                       latest_operation=_with_latest_operation(call))
    return paging.collection(call, "recommendations", rows, limit, lambda r: r["id"])


def show_recommendation(call, recommendation_id):
    """One recommendation with its load calculation (LB) or HA round (from 1.9 with its newest journal line)."""
    return {"recommendation": db_api.get_recommendation(call.db, recommendation_id,
                                                        latest_operation=_with_latest_operation(call))}


def _accepted(call, row, method):
    notified = call.notify_engine(method, recommendation_id=row["id"])
    return route.Reply({"id": row["id"], "status": row["status"], "engine_notified": notified},
                       headers={"Location": "%s/v1/recommendations/%s" % (call.request.application_url,
                                                                          row["id"])})


def run_recommendation(call, recommendation_id):
    """Queue a manual recommendation (recorded first), then wake the engine; the result is read later."""
    row = db_api.request_recommendation_run(call.db, recommendation_id, call.who)
    return _accepted(call, row, "run_recommendation")


def cancel_recommendation(call, recommendation_id):
    """Cancel a waiting recommendation, or record the cancel request of a running one."""
    row = db_api.request_recommendation_cancel(call.db, recommendation_id, call.who)
    return _accepted(call, row, "cancel_recommendation")


_OPERATIONS = ("show_recommendation", "list_operations", "run_recommendation", "cancel_recommendation")


def _links_by_id(expression, operations=_OPERATIONS):
    """Links to ``operations`` on one recommendation, its id read at ``expression``."""
    return tuple(route.Link(name, {"recommendation_id": expression}) for name in operations)


_BASE = "/v1/recommendations/{recommendation_id}"
_ACCEPTED_LINKS = _links_by_id("$response.body#/id", ("show_recommendation", "list_operations"))
ROUTES = [
    route.Route("GET", "/v1/recommendations", list_recommendations, "List recommendations.",
                schema.RECOMMENDATIONS, policy=policy.LIST, query=paging.PARAMS + FILTERS, errors=(400,),
                links=_links_by_id(route.first("recommendations", "id"))),
    route.Route("GET", _BASE, show_recommendation, "Show a recommendation.", schema.RECOMMENDATION,
                policy=policy.GET, errors=(404,),
                links=_links_by_id(route.member("recommendation", "id"), _OPERATIONS[1:]) + (
                    route.Link("show_event", {"event_id": route.member("recommendation", "event_id")}),
                    route.Link("show_vm", {"vm_id": route.member("recommendation", "vm_id")}))),
    route.Route("POST", _BASE + "/run", run_recommendation, "Run a manual recommendation.", common.ACCEPTED,
                policy=policy.RUN, status=202, request_schema=schema.ACTION, errors=(400, 404, 409),
                links=_ACCEPTED_LINKS),
    route.Route("POST", _BASE + "/cancel", cancel_recommendation, "Cancel a recommendation.",
                common.ACCEPTED, policy=policy.CANCEL, status=202, request_schema=schema.ACTION,
                errors=(400, 404, 409), links=_ACCEPTED_LINKS),
]
