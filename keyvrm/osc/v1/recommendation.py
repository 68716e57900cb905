"""`openstack keyvrm recommendation list|show|run|cancel`."""

from osc_lib.command import command

from keyvrm.osc.v1 import common

LIST_COLUMNS = ("id", "event_id", "action", "vm_id", "source_host", "target_host", "status", "attempts")


class ListRecommendations(command.Lister):
    """List recommendations, oldest first."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--event", dest="event_id", metavar="<event>")
        parser.add_argument("--status", metavar="<status>")
        parser.add_argument("--vm", dest="vm_id", metavar="<vm>")
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        a = parsed_args
        items = common.call(common.client(self).list_recommendations, limit=a.limit, marker=a.marker,
                            event_id=a.event_id, status=a.status, vm_id=a.vm_id)
        return common.rows(items, LIST_COLUMNS)


class _One(command.ShowOne):
    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("recommendation_id", metavar="<recommendation>")
        return parser


class ShowRecommendation(_One):
    """Show a recommendation with its load calculation."""

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).get_recommendation, parsed_args.recommendation_id))


class RunRecommendation(_One):
    """Run a manual recommendation (accepted; follow it with `recommendation show`)."""

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).run_recommendation, parsed_args.recommendation_id))


class CancelRecommendation(_One):
    """Cancel a recommendation (a running one is asked to stop)."""

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).cancel_recommendation, parsed_args.recommendation_id))
