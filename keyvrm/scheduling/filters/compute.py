"""ComputeFilter: the host's nova-compute service is up and enabled."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


@register
class ComputeFilter(HostFilter):
    """Reject hosts whose compute service is unknown, down, forced down or disabled."""

    def rejection(self, host_state, request):
        service = host_state.hypervisor.service
        if service is None:
            return "no nova-compute service known"
        if not service.is_enabled:
            return "compute service disabled (%s)" % (service.disabled_reason or "no reason")
        if not service.is_up:
            return "compute service is down"
        return None
