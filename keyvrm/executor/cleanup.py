"""Leftovers of a failed migration on its target, and their removal before the next attempt.

Neutron keeps an INACTIVE binding of the VM's port on the target host when a live
migration fails after binding it; Cinder keeps a ``reserved`` attachment when an
evacuation fails after reserving the volume. Both make the next attempt fail, so they
are found (``leftovers``) and deleted (``CLEANUPS``) before it.
"""

from __future__ import annotations

from keyvrm.drivers import errors
from keyvrm.executor import classify


def _inactive_bindings(cloud, vm_id, target_host):
    return [b for b in cloud.list_port_bindings(vm_id)
            if b.status == "INACTIVE" and b.host == target_host]


def _stale_attachments(cloud, vm_id):
    return [a for a in cloud.list_volume_attachments(vm_id) if a.status == "reserved"]


def leftovers(cloud, vm_id, target_host) -> frozenset:
    """Which known leftovers the VM has now (``classify.INACTIVE_BINDING``/``STALE_ATTACHMENT``)."""
    found = set()
    if _inactive_bindings(cloud, vm_id, target_host):
        found.add(classify.INACTIVE_BINDING)
    if _stale_attachments(cloud, vm_id):
        found.add(classify.STALE_ATTACHMENT)
    return frozenset(found)


def delete_inactive_port_bindings(cloud, vm_id, target_host) -> list:
    """Delete the VM's INACTIVE port bindings on ``target_host``; returns "port@host" of each."""
    deleted = []
    for binding in _inactive_bindings(cloud, vm_id, target_host):
        try:
            cloud.delete_port_binding(binding.port_id, binding.host)
        except errors.NotFoundInCloud:
            pass  # gone already: the aim is reached
        deleted.append("%s@%s" % (binding.port_id, binding.host))
    return deleted


def delete_stale_volume_attachments(cloud, vm_id, target_host) -> list:
    """Delete the VM's ``reserved`` volume attachments; returns their ids."""
    deleted = []
    for attachment in _stale_attachments(cloud, vm_id):
        try:
            cloud.delete_volume_attachment(attachment.id)
        except errors.NotFoundInCloud:
            pass
        deleted.append(attachment.id)
    return deleted


CLEANUPS = {
    classify.DELETE_INACTIVE_PORT_BINDINGS: delete_inactive_port_bindings,
    classify.DELETE_STALE_VOLUME_ATTACHMENTS: delete_stale_volume_attachments,
}
