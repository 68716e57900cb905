"""`openstack keyvrm recommendation list|show|run|cancel`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient import states

LIST_COLUMNS = ("id", "event_id", "action", "vm_id", "source_host", "target_host", "status", "attempts")


class ListRecommendations(command.Lister):
    """List recommendations, oldest first."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--event", dest="event_id", metavar="<event>")
        parser.add_argument("--status", choices=states.RECOMMENDATION_STATUSES)
        parser.add_argument("--vm", dest="vm_id", metavar="<vm>")
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        a = parsed_args
        items = common.call(common.client(self).list_recommendations, limit=a.limit, marker=a.marker,
                            event_id=a.event_id, status=a.status, vm_id=a.vm_id)
        return common.rows(items, LIST_COLUMNS)


class _One(common.ShowById):
    argument, metavar = "recommendation_id", "<recommendation>"


class ShowRecommendation(_One):
    """Show a recommendation with its load calculation."""

    method = "get_recommendation"


class RunRecommendation(_One):
    """Run a manual recommendation (accepted; follow it with `recommendation show`)."""

    method = "run_recommendation"


class CancelRecommendation(_One):
    """Cancel a recommendation (a running one is asked to stop)."""

    method = "cancel_recommendation"
