"""AggregateTypeAffinityFilter: aggregates with ``instance_type`` accept only those flavors."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


@register
class AggregateTypeAffinityFilter(HostFilter):
    """A host whose aggregates set ``instance_type`` passes only the listed flavor names."""

    def rejection(self, host_state, request):
        values = host_state.aggregate_values("instance_type")
        if not values:
            return None
        flavor = request.vm.flavor.name
        for value in values:
            if flavor in [name.strip() for name in str(value).split(",")]:
                return None
        return "flavor %s not in aggregate instance_type %s" % (flavor, ";".join(values))
