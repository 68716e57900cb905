"""Whether a recommendation may still go ahead, from a fresh read of the cloud.

The plan was made from a snapshot; by the time the executor holds the VM's lock the VM
may have moved, changed state or the target may have filled up. ``rejection`` answers
with the reason to cancel, or None.
"""

from __future__ import annotations

from typing import Optional

from keyvrm.drivers import errors
from keyvrm.model import snapshot as m
from keyvrm.model import states
from keyvrm.planning import storage

# KeyVRM states of a source host whose fence was confirmed (set by the HAFlow after fence_host).
FENCED_STATES = (states.HypervisorState.FENCED, states.HypervisorState.EVACUATING)

# Nova's vm_states that allow each action (API checks of evacuate, os-migrateLive and migrate).
ALLOWED_STATUSES = {
    "evacuate": ("ACTIVE", "SHUTOFF", "ERROR"),
    "live_migrate": ("ACTIVE", "PAUSED"),
    "cold_migrate": ("ACTIVE", "SHUTOFF"),
}
# The status each vm_state shows when no task hides it (Nova's status map: a server ``active`` with
# task_state ``rebuilding`` shows REBUILD).
_STATUS_OF_VM_STATE = {"active": "ACTIVE", "stopped": "SHUTOFF", "error": "ERROR", "paused": "PAUSED"}
# The status a power task was asked to reach (a start a dead host never carried out leaves powering-on).
_STATUS_A_TASK_ASKS = {"powering-on": "ACTIVE", "powering-off": "SHUTOFF"}


def status_beneath(vm) -> str:
    """The status ``vm`` is meant to have beneath its task: the one its power task asked for, else its vm_state's.

    Its API status when Nova does not say.
    """
    return _STATUS_A_TASK_ASKS.get(vm.task_state) or _STATUS_OF_VM_STATE.get(vm.vm_state, vm.status)


def server(cloud, vm_id) -> Optional[m.VM]:
    """The server ``vm_id`` as the cloud reports it now (one read), or None if it is gone."""
    try:
        return cloud.get_server(vm_id)
    except errors.NotFoundInCloud:
        return None


def _vm_rejection(rec, vm, storage_mode, allow_rebuild_local_disk, task_left=False) -> Optional[str]:
    action = rec["action"]
    if vm is None:
        return "VM %s no longer exists" % rec["vm_id"]
    if vm.host != rec["source_host"]:
        return "VM is on %s, not on the source %s any more" % (vm.host, rec["source_host"])
    if vm.task_state is not None and not task_left:
        return "VM is busy (task_state %s)" % vm.task_state
    status = _STATUS_OF_VM_STATE.get(vm.vm_state, vm.status) if task_left else vm.status  # Nova checks vm_state
    if status not in ALLOWED_STATUSES[action]:
        return "VM status %s does not allow %s" % (status, action)
    if action == "evacuate" and storage.evacuation_loses_disk(vm, storage_mode) and not allow_rebuild_local_disk:
        return ("VM has a local disk that an evacuation would lose (aggregate storage_mode %s, "
                "allow_rebuild_local_disk is off)" % (storage_mode or "undeclared"))
    return None


def _service_rejection(cloud, rec) -> Optional[str]:
    if rec["action"] == "evacuate":
        source = cloud.get_service(rec["source_host"])
        if source.state != m.SERVICE_DOWN:
            return "source %s compute service is up: it is not evacuated" % rec["source_host"]
    target = cloud.get_service(rec["target_host"])
    if target.state != m.SERVICE_UP:
        return "target %s compute service is down" % rec["target_host"]
    if target.status != m.SERVICE_ENABLED:
        return "target %s compute service is disabled" % rec["target_host"]
    return None


def _capacity_rejection(cloud, vm, target_host) -> Optional[str]:
    inventories = cloud.host_inventories(target_host)
    for resource_class, amount in ((m.VCPU, vm.flavor.vcpus), (m.MEMORY_MB, vm.flavor.ram_mb)):
        inventory = inventories.get(resource_class)
        if inventory is None:
            return "target %s has no %s inventory" % (target_host, resource_class)
        if inventory.max_unit is not None and amount > inventory.max_unit:
            return "target %s: %s %d exceeds max_unit %d" % (
                target_host, resource_class, amount, inventory.max_unit)
        if amount > inventory.free:
            return "target %s is full: %s free %g < %d needed" % (
                target_host, resource_class, inventory.free, amount)
    return None


def rejection(cloud, rec, vm, storage_mode=None, allow_rebuild_local_disk=False, task_left=False) -> Optional[str]:
    """Why ``rec`` must be cancelled now (VM moved/busy/wrong state, services, capacity), or None.

    ``vm`` is the fresh read of the server (``server``); services and the target's
    Placement inventory are read here. ``storage_mode`` is the storage mode of the
    aggregate of the recommendation's event. ``task_left``: the VM's task was left by
    work on dead hosts (the runner checked its migrations), so it does not make the VM
    busy. Driver errors propagate (they are not reasons).
    """
    return (_vm_rejection(rec, vm, storage_mode, allow_rebuild_local_disk, task_left)
            or _service_rejection(cloud, rec)
            or _capacity_rejection(cloud, vm, rec["target_host"]))
