"""ComputeCapabilitiesFilter: flavor extra specs match the host's capabilities."""

import json

from keyvrm.scheduling import extra_specs_ops
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_SCOPE = "capabilities"


def _capability(capabilities, path):
    """Walk nested dictionaries (JSON strings are decoded on the way, as Nova does)."""
    value = capabilities
    for part in path:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                return None
        if not isinstance(value, dict) or value.get(part) is None:
            return None
        value = value[part]
    return value


@register
class ComputeCapabilitiesFilter(HostFilter):
    """Keys scoped ``capabilities:`` must match; other scopes are ignored.

    A nested key such as ``capabilities:cpu_info:arch`` walks nested dictionaries. An
    unscoped key is checked only if the host reports it; ``hw:maxphysaddr_bits`` means
    ``capabilities:cpu_info:maxphysaddr:bits >= N``.
    """

    def rejection(self, host_state, request):
        specs = dict(request.vm.flavor.extra_specs)
        bits = specs.pop("hw:maxphysaddr_bits", None)
        if bits is not None:
            specs["capabilities:cpu_info:maxphysaddr:bits"] = ">= %s" % bits
        for key, wanted in specs.items():
            path = key.split(":")
            if len(path) == 1:
                if key not in host_state.capabilities:
                    continue
            elif path[0] != _SCOPE:
                continue
            else:
                path = path[1:]
            have = _capability(host_state.capabilities, path)
            if have is None:
                return "capability %s not reported by host" % key
            if not extra_specs_ops.match(str(have), wanted):
                return "capability %s=%s does not match %s" % (key, have, wanted)
        return None
