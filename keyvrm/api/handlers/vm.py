"""VMs KeyVRM acted on: lifecycle state, history, and the admin-only unlock."""

from keyvrm.api import route
from keyvrm.api.schemas import vm as schema
from keyvrm.db import api as db_api
from keyvrm.policies import vm as policy


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
    route.Route("GET", "/v1/vms/{vm_id}", show_vm, "Show a VM's lifecycle state.", schema.VM,
                policy=policy.GET, errors=(404,),
                links=(route.Link("list_vm_history", _VM_ID), route.Link("unlock_vm", _VM_ID))),
    route.Route("GET", "/v1/vms/{vm_id}/history", list_vm_history, "Show a VM's history.", schema.HISTORY,
                policy=policy.GET, errors=(404,)),
    route.Route("POST", "/v1/vms/{vm_id}/unlock", unlock_vm, "Unlock a VM (admin only).", schema.UNLOCKED,
                policy=policy.UNLOCK, request_schema=schema.UNLOCK, errors=(400, 404),
                links=(route.Link("show_vm", {"vm_id": "$response.body#/vm_id"}),)),
]
