"""ServerGroupAntiAffinityFilter and ServerGroupAffinityFilter: hard server-group policies.

Soft policies never reject a host (in Nova they only weigh). Membership is read from the
planning ledger, so VMs placed earlier in the same plan count.
"""

from keyvrm.model import snapshot as m
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


@register
class ServerGroupAntiAffinityFilter(HostFilter):
    """At most ``rules["max_server_per_host"]`` (default 1) members per host."""

    def rejection(self, host_state, request):
        group = request.server_group
        if group is None or group.policy != m.ANTI_AFFINITY:
            return None
        limit = int(group.rules.get("max_server_per_host", 1))
        members = host_state.group_members(group.id, excluding_vm=request.vm.id)
        if members >= limit:
            return "anti-affinity group %s already has %d member(s) here (max %d)" % (
                group.name, members, limit)
        return None


@register
class ServerGroupAffinityFilter(HostFilter):
    """All members on one host: only the hosts of the group's members (the VM's own too) pass."""

    def rejection(self, host_state, request):
        group = request.server_group
        if group is None or group.policy != m.AFFINITY or not request.group_hosts:
            return None
        if host_state.name in request.group_hosts:
            return None
        return "affinity group %s lives on %s (Nova admits no other host)" % (
            group.name, ", ".join(sorted(request.group_hosts)))
