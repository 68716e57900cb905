"""Hypervisors: KeyVRM's state of each host (since when, why, fencing) and the admin's return to service."""

from keyvrm.api import hypervisor_view
from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import route
from keyvrm.api.schemas import hypervisor as schema
from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.model import states
from keyvrm.policies import hypervisor as policy

STATE = route.Param("state", {"type": "string", "enum": states.values(states.HypervisorState)},
                    "Only hosts in this KeyVRM state.")
AGGREGATE = route.Param("aggregate", {"type": "string", "minLength": 1}, "Only hosts of this aggregate.")
AZ = route.Param("availability_zone", {"type": "string", "minLength": 1}, "Only hosts Nova lists in this AZ.",
                 since=microversion.PORTAL_LISTS)
SORT_DIR = route.Param("sort_dir", {"type": "string", "enum": ["asc", "desc"]},
                       "asc (the default): names from the first on; desc: from the last down, so a marker"
                       " gives the page before it.", since=microversion.PORTAL_LISTS)


def list_hypervisors(call):
    """One page of hosts by name: the newest snapshot's hosts and every host KeyVRM holds a state for."""
    q = call.query
    limit = paging.page_size(call, q)
    items = hypervisors_db.page_hypervisors(call.db, limit, marker=q.get("marker"), state=q.get("state"),
                                            aggregate=q.get("aggregate"),
                                            availability_zone=q.get("availability_zone"),
                                            descending=q.get("sort_dir") == "desc")
    return paging.collection(call, "hypervisors", [hypervisor_view.shown(i, call.version) for i in items], limit,
                             lambda i: i["host"])


def show_hypervisor(call, host):
    """One host's KeyVRM state, fencing record and compute service."""
    return {"hypervisor": hypervisor_view.shown(hypervisors_db.get_hypervisor(call.db, host), call.version)}


def restore_hypervisor(call, host):
    """Ask the engine to return a held host to service (unforce, enable), from 1.8 with its failback; audited."""
    hypervisor = db_api.request_hypervisor_restore(call.db, host, call.who, request_id=call.context.request_id,
                                                   failback=bool((call.body or {}).get("failback")))
    return {"hypervisor": hypervisor_view.shown(hypervisor, call.version)}


def drain_hypervisor(call, host):
    """Ask the engine to drain an ok host: disable its compute service, live-migrate its VMs away; audited.

    From 1.11 ``allow_cold`` lets it cold-migrate those a live migration cannot move.
    """
    hypervisor = db_api.request_hypervisor_drain(call.db, host, call.body["reason"], call.who,
                                                 request_id=call.context.request_id,
                                                 allow_cold=bool(call.body.get("allow_cold")))
    return {"hypervisor": hypervisor_view.shown(hypervisor, call.version)}


_FIRST = {"host": route.first("hypervisors", "host")}

ROUTES = [
    route.Route("GET", "/v1/hypervisors", list_hypervisors, "List hypervisors with KeyVRM's state.",
                schema.HYPERVISORS, policy=policy.LIST, query=paging.PARAMS + (STATE, AGGREGATE, AZ, SORT_DIR),
                errors=(400,),
                links=(route.Link("show_hypervisor", _FIRST), route.Link("restore_hypervisor", _FIRST))),
    route.Route("GET", "/v1/hypervisors/{host}", show_hypervisor, "Show a hypervisor's KeyVRM state.",
                schema.HYPERVISOR, policy=policy.GET, errors=(404,),
                links=(route.Link("restore_hypervisor", {"host": route.member("hypervisor", "host")}),)),
    route.Route("POST", "/v1/hypervisors/{host}/restore", restore_hypervisor,
                "Return a held hypervisor to service, from 1.8 with its failback (admin only).", schema.HYPERVISOR,
                policy=policy.RESTORE, request_schema=schema.RESTORE, status=202, errors=(400, 404, 409)),
    route.Route("POST", "/v1/hypervisors/{host}/drain", drain_hypervisor,
                "Drain an ok hypervisor: disable its compute service, live-migrate its VMs away, from 1.11 with"
                " allow_cold cold-migrate those a live migration cannot move (admin only).",
                schema.HYPERVISOR, policy=policy.DRAIN, request_schema=schema.DRAIN, status=202,
                errors=(400, 404, 409), since=microversion.DRAIN),
]
