"""`openstack keyvrm vm show|history|unlock`."""

from osc_lib.command import command

from keyvrm.osc.v1 import common


def _vm_parser(parser):
    parser.add_argument("vm_id", metavar="<vm>")
    return parser


class ShowVM(command.ShowOne):
    """Show a VM's desired/observed status, lock and transition."""

    def get_parser(self, prog_name):
        return _vm_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).get_vm, parsed_args.vm_id))


class ListVMHistory(command.Lister):
    """Show each action on a VM with status and duration."""

    def get_parser(self, prog_name):
        return _vm_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_vm_history, parsed_args.vm_id)
        return common.rows(items, ("action", "status", "message", "started_at", "finished_at", "duration_s"))


class UnlockVM(command.ShowOne):
    """Release a VM's lock by hand (admin only)."""

    def get_parser(self, prog_name):
        return _vm_parser(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).unlock_vm, parsed_args.vm_id))
