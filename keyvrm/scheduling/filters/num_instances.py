"""NumInstancesFilter and AggregateNumInstancesFilter: a cap on instances per host."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

DEFAULT_MAX_INSTANCES_PER_HOST = 50


@register
class NumInstancesFilter(HostFilter):
    """A host already holding ``max_instances_per_host`` instances fails."""

    def __init__(self, max_instances_per_host=DEFAULT_MAX_INSTANCES_PER_HOST):
        self.max_instances_per_host = max_instances_per_host

    def limit_for(self, host_state):
        return self.max_instances_per_host

    def rejection(self, host_state, request):
        limit = self.limit_for(host_state)
        if host_state.num_instances >= limit:
            return "%d instances, limit %d" % (host_state.num_instances, limit)
        return None


@register
class AggregateNumInstancesFilter(NumInstancesFilter):
    """As NumInstancesFilter, with the limit taken from aggregate metadata.

    The limit is the smallest aggregate ``max_instances_per_host`` value, else (none set,
    or one not an integer) the configured one.
    """

    def limit_for(self, host_state):
        try:
            values = [int(v) for v in host_state.aggregate_values("max_instances_per_host")]
        except ValueError:
            return self.max_instances_per_host
        return min(values) if values else self.max_instances_per_host
