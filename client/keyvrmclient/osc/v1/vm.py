"""`openstack keyvrm vm show|history|unlock`."""

from keyvrmclient.osc.v1 import common


class ShowVM(common.ShowById):
    """Show a VM's desired/observed status, lock and transition."""

    argument, metavar, method = "vm_id", "<vm>", "get_vm"


class ListVMHistory(common.ListById):
    """Show each action on a VM with status and duration."""

    argument, metavar, method = "vm_id", "<vm>", "list_vm_history"
    columns = ("action", "status", "message", "started_at", "finished_at", "duration_s")


class UnlockVM(common.ShowById):
    """Release a VM's lock by hand (admin only)."""

    argument, metavar, method = "vm_id", "<vm>", "unlock_vm"
