"""`openstack keyvrm operation list`."""

from osc_lib.command import command

from keyvrm.osc.v1 import common

LIST_COLUMNS = ("id", "kind", "attempt", "message", "error", "duration_s", "created_at")


class ListOperations(command.Lister):
    """List a recommendation's operation journal."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("recommendation_id", metavar="<recommendation>")
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_operations, parsed_args.recommendation_id)
        return common.rows(items, LIST_COLUMNS)
