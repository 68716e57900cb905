"""`openstack keyvrm cycle list|show|run`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient.osc.v1 import reasons
from keyvrmclient import states

LIST_COLUMNS = ("id", "status", "reason_code", "reason", "snapshot_id", "started_at", "finished_at")


class ListCycles(command.Lister):
    """List cycles, newest first, with why nothing was done when so."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--status", choices=states.CYCLE_STATUSES)
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_cycles, limit=parsed_args.limit, marker=parsed_args.marker,
                            status=parsed_args.status)
        return common.rows(items, LIST_COLUMNS)


class ShowCycle(command.ShowOne):
    """Show a cycle: its reason, and per aggregate why its HA or LB run had nothing to do."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("cycle_id", metavar="<cycle>", help="cycle id")
        return parser

    def take_action(self, parsed_args):
        cycle = common.call(common.client(self).get_cycle, parsed_args.cycle_id)
        names, values = common.show(cycle)
        return names, tuple(reasons.OutcomesColumn(cycle["outcomes"]) if name == "outcomes" else value
                            for name, value in zip(names, values))


class RunCycle(command.ShowOne):
    """Request a cycle now (accepted; it appears in `cycle list`)."""

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).request_cycle))
