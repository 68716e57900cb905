"""VMs KeyVRM acted on: the list of them (locked, by state), lifecycle state, history, and the admin-only unlock."""

from keyvrm.api import microversion
from keyvrm.api import paging
from keyvrm.api import route
from keyvrm.api.schemas import vm as schema
from keyvrm.db import api as db_api
from keyvrm.lifecycle import states as lifecycle_states
from keyvrm.policies import vm as policy

# A VM's state as the list filters it: the transition it is in, or the failure its last one left.
STATES = sorted(set(lifecycle_states.FAILURE_STATE_OF) | set(lifecycle_states.FAILURE_STATE_OF.values()))
FILTERS = (
    route.Param("locked", {"type": "boolean"}, "Only locked (true) or unlocked (false) VMs."),
    route.Param("state", {"type": "string", "enum": STATES},
                "Only VMs in this transitional state (e.g. migrating) or left in this failure state"
                " (e.g. migration_failed)."),
    route.Param("sort_dir", {"type": "string", "enum": ["asc", "desc"]},
                "asc (the default): VM ids from the first on; desc: from the last down, so a marker gives the"
                " page before it."),
)


def list_vms(call):
    """One page of the VMs KeyVRM holds a state for, by VM id, each as ``GET /v1/vms/{vm_id}`` shows it."""
    q = call.query
    limit = paging.page_size(call, q)
    rows = db_api.page_vm_states(call.db, limit, marker=q.get("marker"), locked=q.get("locked"),
                                 state=q.get("state"), descending=q.get("sort_dir") == "desc")
    return paging.collection(call, "vms", rows, limit, lambda r: r["vm_id"])


def show_vm(call, vm_id):
    """Desired vs observed status, lock and transitional state of a VM."""
    return {"vm": db_api.get_vm_state(call.db, vm_id)}


def list_vm_history(call, vm_id):
    """Each action on the VM with its status and duration, oldest first."""
    db_api.get_vm_state(call.db, vm_id)
    return {"history": db_api.list_vm_history(call.db, vm_id)}


def unlock_vm(call, vm_id):
    """Release the VM's lock and end its transition, by hand; written to the VM's history."""
    return {"vm_id": vm_id, "was_locked": db_api.force_unlock_vm(call.db, vm_id, call.who)}


_VM_ID = {"vm_id": route.member("vm", "vm_id")}

ROUTES = [
    route.Route("GET", "/v1/vms", list_vms, "List the VMs KeyVRM holds a state for.", schema.VMS,
                policy=policy.LIST, query=paging.PARAMS + FILTERS, errors=(400,), since=microversion.PORTAL_LISTS,
                links=(route.Link("show_vm", {"vm_id": route.first("vms", "vm_id")}),)),
    route.Route("GET", "/v1/vms/{vm_id}", show_vm, "Show a VM's lifecycle state.", schema.VM,
                policy=policy.GET, errors=(404,),
                links=(route.Link("list_vm_history", _VM_ID), route.Link("unlock_vm", _VM_ID))),
    route.Route("GET", "/v1/vms/{vm_id}/history", list_vm_history, "Show a VM's history.", schema.HISTORY,
                policy=policy.GET, errors=(404,)),
    route.Route("POST", "/v1/vms/{vm_id}/unlock", unlock_vm, "Unlock a VM (admin only).", schema.UNLOCKED,
                policy=policy.UNLOCK, request_schema=schema.UNLOCK, errors=(400, 404),
                links=(route.Link("show_vm", {"vm_id": "$response.body#/vm_id"}),)),
]
