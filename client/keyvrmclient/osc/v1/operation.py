"""`openstack keyvrm operation list`."""

from keyvrmclient.osc.v1 import common


class ListOperations(common.ListById):
    """List a recommendation's operation journal."""

    argument, metavar, method = "recommendation_id", "<recommendation>", "list_operations"
    columns = ("id", "kind", "attempt", "message", "error", "duration_s", "created_at")
