"""ComputeCapabilitiesFilter: flavor extra specs match the host's capabilities."""

from keyvrm.scheduling import extra_specs_ops
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_SCOPE = "capabilities"


def _capability(capabilities, path):
    value = capabilities
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


@register
class ComputeCapabilitiesFilter(HostFilter):
    """Keys scoped ``capabilities:`` (or unscoped) must match; other scopes are ignored.

    A nested key such as ``capabilities:cpu_info:arch`` walks nested dictionaries.
    """

    def rejection(self, host_state, request):
        for key, wanted in request.vm.flavor.extra_specs.items():
            path = key.split(":")
            if len(path) > 1:
                if path[0] != _SCOPE:
                    continue
                path = path[1:]
            have = _capability(host_state.capabilities, path)
            if have is None:
                return "capability %s not reported by host" % key
            if not extra_specs_ops.match(str(have), wanted):
                return "capability %s=%s does not match %s" % (key, have, wanted)
        return None
