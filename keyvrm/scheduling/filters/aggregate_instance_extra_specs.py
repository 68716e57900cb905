"""AggregateInstanceExtraSpecsFilter: flavor extra specs match aggregate metadata."""

from keyvrm.scheduling import extra_specs_ops
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_SCOPE = "aggregate_instance_extra_specs"


@register
class AggregateInstanceExtraSpecsFilter(HostFilter):
    """Scoped or unscoped extra specs must match the host's aggregate metadata.

    Keys scoped ``aggregate_instance_extra_specs:`` (or unscoped) must be in the host's
    aggregate metadata with a matching value; other scopes are ignored.
    """

    def rejection(self, host_state, request):
        for key, wanted in request.vm.flavor.extra_specs.items():
            parts = key.split(":", 1)
            if len(parts) > 1:
                if parts[0] != _SCOPE:
                    continue
                key = parts[1]
            values = host_state.aggregate_metadata.get(key)
            if not values:
                return "aggregate metadata has no %s" % key
            if not any(extra_specs_ops.match(value, wanted) for value in values):
                return "aggregate %s=%s does not match %s" % (
                    key, ",".join(sorted(values)), wanted)
        return None
