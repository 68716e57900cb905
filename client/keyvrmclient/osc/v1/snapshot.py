"""`openstack keyvrm snapshot list|show`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common

LIST_COLUMNS = ("id", "region", "taken_at", "hypervisor_count", "vm_count", "size_bytes")


class ListSnapshots(command.Lister):
    """List stored region snapshots, newest first."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_snapshots, limit=parsed_args.limit, marker=parsed_args.marker)
        return common.rows(items, LIST_COLUMNS)


class ShowSnapshot(common.ShowById):
    """Show a snapshot summary."""

    argument, metavar, method = "snapshot_id", "<snapshot>", "get_snapshot"
