"""SameHostFilter and DifferentHostFilter: the ``same_host`` / ``different_host`` hints."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


def _hinted(request, key):
    value = request.hints.get(key) or ()
    if isinstance(value, str):
        value = (value,)
    return [vm_id for vm_id in value if vm_id != request.vm.id]


@register
class SameHostFilter(HostFilter):
    """With a ``same_host`` hint, only a host holding one of the named instances passes."""

    def rejection(self, host_state, request):
        wanted = _hinted(request, "same_host")
        if not wanted or any(vm_id in host_state.instance_ids for vm_id in wanted):
            return None
        return "same_host hint: none of %s here" % ", ".join(wanted)


@register
class DifferentHostFilter(HostFilter):
    """With a ``different_host`` hint, a host holding any of the named instances fails."""

    def rejection(self, host_state, request):
        present = [vm_id for vm_id in _hinted(request, "different_host")
                   if vm_id in host_state.instance_ids]
        if present:
            return "different_host hint: %s here" % ", ".join(present)
        return None
