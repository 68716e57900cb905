"""ComputeCapabilitiesFilter: flavor extra specs match the host's capabilities.

Nova walks ``capabilities:<attribute>[:<key>...]`` through its scheduler host state
(``cpu_info``, ``hypervisor_type``, ``numa_topology``, ``stats``...). KeyVRM's host state
holds only what an API reports (``HostState.capabilities``: ``cpu_info`` from the
hypervisors API, ``hypervisor_type``, ``hypervisor_version``, ``host_ip``). So:

- a key whose first part KeyVRM holds is checked as Nova checks it, a missing nested
  key included (it is missing in Nova's copy too: the API returns ``cpu_info`` verbatim);
- a scoped key whose first part KeyVRM does not hold (Nova's compute node ``stats``,
  ``numa_topology``, ``pci_stats``, ``supported_instances``... are in no Nova API)
  **passes**, named in ``unchecked`` (the planners report it once per plan);
- an unscoped key is checked only where the host reports it, as in Nova; one naming a
  host-state attribute KeyVRM cannot see passes unchecked, any other is ignored (Nova
  would also look it up in the node's ``stats``, which no API returns).
"""

import json

from keyvrm.scheduling import extra_specs_ops
from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_SCOPE = "capabilities"
# Attributes of Nova's scheduler HostState that a capabilities key can name
# (nova/scheduler/host_manager.py), and its compute-node stats dictionary.
NOVA_HOST_STATE_ATTRIBUTES = frozenset((
    "aggregates", "cell_uuid", "cpu_allocation_ratio", "cpu_info", "disk_allocation_ratio",
    "disk_mb_used", "failed_builds", "free_disk_mb", "free_ram_mb", "host", "host_ip",
    "hypervisor_hostname", "hypervisor_type", "hypervisor_version", "instances", "limits",
    "metrics", "nodename", "num_instances", "num_io_ops", "numa_topology", "pci_stats",
    "ram_allocation_ratio", "service", "stats", "supported_instances",
    "total_usable_disk_gb", "total_usable_ram_mb", "updated", "uuid", "vcpus_total",
    "vcpus_used"))
_NOT_REPORTED = "no Nova API reports this host attribute"
_STATS = "compute node stats are in no Nova API"


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

    ``capabilities:cpu_info:arch`` walks nested dictionaries; ``hw:maxphysaddr_bits``
    means ``capabilities:cpu_info:maxphysaddr:bits >= N``. Keys on attributes no API
    reports pass unchecked (module docstring).
    """

    may_leave_unchecked = True

    def _checked_specs(self, host_state, request):
        """Yield (key, path or None, wanted): path None = KeyVRM cannot check the key."""
        specs = dict(request.vm.flavor.extra_specs)
        bits = specs.pop("hw:maxphysaddr_bits", None)
        if bits is not None:
            specs["capabilities:cpu_info:maxphysaddr:bits"] = ">= %s" % bits
        known = host_state.capabilities
        for key, wanted in specs.items():
            path = key.split(":")
            if len(path) == 1:
                if key in known:
                    yield key, path, wanted
                elif key in NOVA_HOST_STATE_ATTRIBUTES:
                    yield key, None, wanted
                continue
            if path[0] != _SCOPE:
                continue
            path = path[1:]
            yield key, (path if path[0] in known else None), wanted

    def rejection(self, host_state, request):
        for key, path, wanted in self._checked_specs(host_state, request):
            if path is None:
                continue
            have = _capability(host_state.capabilities, path)
            if have is None:
                return "capability %s not reported by host" % key
            if not extra_specs_ops.match(str(have), wanted):
                return "capability %s=%s does not match %s" % (key, have, wanted)
        return None

    def unchecked(self, host_state, request):
        out = []
        for key, path, _ in self._checked_specs(host_state, request):
            if path is None:
                first = key.split(":")[1] if key.startswith(_SCOPE + ":") else key
                out.append((key, _NOT_REPORTED if first in NOVA_HOST_STATE_ATTRIBUTES else _STATS))
        return tuple(out)
