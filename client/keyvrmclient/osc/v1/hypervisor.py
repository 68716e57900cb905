"""`openstack keyvrm hypervisor list|show|restore`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient import states

LIST_COLUMNS = ("host", "state", "state_since", "reason", "aggregates", "event_id")


class ListHypervisors(command.Lister):
    """List hypervisors with KeyVRM's state of each, since when and why."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--state", choices=states.HYPERVISOR_STATES, help="Only hosts in this KeyVRM state.")
        parser.add_argument("--aggregate", metavar="<aggregate>", help="Only hosts of this aggregate.")
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_hypervisors, state=parsed_args.state,
                            aggregate=parsed_args.aggregate, limit=parsed_args.limit, marker=parsed_args.marker)
        return common.rows(items, LIST_COLUMNS)


class ShowHypervisor(common.ShowById):
    """Show a hypervisor's KeyVRM state, fencing record and compute service."""

    argument, metavar, method = "name", "<hypervisor>", "get_hypervisor"


class RestoreHypervisor(common.ShowById):
    """Return a fenced, maintenance or error host to service: the engine unforces and enables it (admin only)."""

    argument, metavar, method = "name", "<hypervisor>", "restore_hypervisor"
