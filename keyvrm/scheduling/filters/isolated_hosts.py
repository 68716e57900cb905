"""IsolatedHostsFilter: isolated images only on isolated hosts (and, optionally, the reverse)."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


@register
class IsolatedHostsFilter(HostFilter):
    """Isolated images go only to isolated hosts (and, if restricted, only there).

    Nova's ``[filter_scheduler] isolated_images``, ``isolated_hosts`` and
    ``restrict_isolated_hosts_to_isolated_images`` are constructor arguments.
    """

    def __init__(self, isolated_images=(), isolated_hosts=(),
                 restrict_isolated_hosts_to_isolated_images=True):
        self.isolated_images = frozenset(isolated_images)
        self.isolated_hosts = frozenset(isolated_hosts)
        self.restrict = restrict_isolated_hosts_to_isolated_images

    def rejection(self, host_state, request):
        if not (self.isolated_images or self.isolated_hosts):
            return None
        image_isolated = request.vm.image_id in self.isolated_images
        host_isolated = host_state.name in self.isolated_hosts
        if image_isolated and not host_isolated:
            return "isolated image on a non-isolated host"
        if self.restrict and host_isolated and not image_isolated:
            return "isolated host accepts only isolated images"
        return None
