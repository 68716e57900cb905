"""AggregateMultiTenancyIsolation: ``filter_tenant_id*`` aggregates serve only those projects."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_KEY_PREFIX = "filter_tenant_id"


@register
class AggregateMultiTenancyIsolation(HostFilter):
    """Keys starting with ``filter_tenant_id`` list allowed projects (comma separated)."""

    def rejection(self, host_state, request):
        allowed = set()
        for key, values in host_state.aggregate_metadata.items():
            if key.startswith(_KEY_PREFIX):
                allowed.update(values)
        if allowed and request.vm.project_id not in allowed:
            return "project %s not in the aggregate's filter_tenant_id" % request.vm.project_id
        return None
