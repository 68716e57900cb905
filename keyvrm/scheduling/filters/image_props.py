"""ImagePropertiesFilter: the host supports the image's architecture, hypervisor and mode."""

import operator
import re

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


_PREDICATE = re.compile(r"^\s*(<=|>=|<|>|!=|==)\s*([^\s,]+)\s*$")
_COMPARE = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
            "!=": operator.ne, "==": operator.eq}


def version_of_int(version_int):
    """Nova's integer hypervisor version as a tuple: 6002000 -> (6, 2, 0)."""
    parts = []
    while version_int:
        parts.insert(0, version_int % 1000)
        version_int //= 1000
    return tuple(parts)


def _padded(a, b):
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def version_satisfies(hv_version, requirement):
    """Whether the integer ``hv_version`` meets a predicate list such as ">=6.0, <8"."""
    have = version_of_int(hv_version)
    for part in str(requirement).split(","):
        match = _PREDICATE.match(part)
        if match is None:
            return False
        op, text = match.groups()
        try:
            want = tuple(int(p) for p in text.split("."))
        except ValueError:
            return False
        if not _COMPARE[op](*_padded(have, want)):
            return False
    return True


@register
class ImagePropertiesFilter(HostFilter):
    """The host meets the image's architecture, hypervisor type, mode and version.

    Read: ``hw_architecture``, ``img_hv_type``, ``hw_vm_mode``, ``img_hv_requested_version``.

    The host's ``capabilities["supported_instances"]`` is a list of
    (architecture, hypervisor type, vm mode) triples; an image asking for none of the three
    passes (its version request alone is not checked, as in Nova).
    """

    def rejection(self, host_state, request):
        props = request.image_properties
        arch = props.get("hw_architecture") or props.get("architecture")
        hv_type = props.get("img_hv_type") or props.get("hypervisor_type")
        vm_mode = props.get("hw_vm_mode") or props.get("vm_mode")
        if not (arch or hv_type or vm_mode):
            return None
        version = props.get("img_hv_requested_version")
        hv_version = host_state.hypervisor.hypervisor_version
        supported = host_state.capabilities.get("supported_instances") or ()
        for triple in supported:
            s_arch, s_type, s_mode = (tuple(triple) + (None, None, None))[:3]
            if ((not arch or arch.lower() == str(s_arch).lower())
                    and (not hv_type or hv_type.lower() == str(s_type).lower())
                    and (not vm_mode or vm_mode.lower() == str(s_mode).lower())):
                if not (version and hv_version) or version_satisfies(hv_version, version):
                    return None
                return "hypervisor version %s does not satisfy %s" % (hv_version, version)
        return "image needs %s/%s/%s, host does not support it" % (arch, hv_type, vm_mode)
