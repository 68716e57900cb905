"""`openstack keyvrm event list|show`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common

LIST_COLUMNS = ("id", "aggregate_name", "kind", "marker", "status", "state", "reason", "created_at")


class ListEvents(command.Lister):
    """List events, newest first, with filters."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--aggregate", metavar="<name>")
        parser.add_argument("--kind", choices=("HA", "LB"))
        parser.add_argument("--status", metavar="<status>")
        parser.add_argument("--state", choices=("healthy", "warning", "error"))
        parser.add_argument("--sort-key", metavar="<field>")
        parser.add_argument("--sort-dir", choices=("asc", "desc"))
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        a = parsed_args
        items = common.call(common.client(self).list_events, limit=a.limit, marker=a.marker, aggregate=a.aggregate,
                            kind=a.kind, status=a.status, state=a.state, sort_key=a.sort_key, sort_dir=a.sort_dir)
        return common.rows(items, LIST_COLUMNS)


class ShowEvent(common.ShowById):
    """Show an event with its reason and recommendation counts."""

    argument, metavar, method = "event_id", "<event>", "get_event"
