"""ImagePropertiesFilter: the host supports the image's architecture, hypervisor and mode."""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register


def version_to_int(text):
    """Nova's integer form of a dotted version: "2.11.0" -> 2011000."""
    parts = [int(p) for p in str(text).split(".")]
    value = 0
    for part in parts:
        value = value * 1000 + part
    return value * 1000 ** max(0, 3 - len(parts))


def _version_ok(hv_version, requirement):
    words = str(requirement).split()
    op, version = (words[0], words[1]) if len(words) == 2 else ("==", words[0])
    try:
        wanted = version_to_int(version)
    except ValueError:
        return False
    compare = {">=": hv_version >= wanted, "<=": hv_version <= wanted,
               ">": hv_version > wanted, "<": hv_version < wanted,
               "==": hv_version == wanted, "=": hv_version >= wanted}
    return compare.get(op, False)


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
                if not (version and hv_version) or _version_ok(hv_version, version):
                    return None
                return "hypervisor version %s does not satisfy %s" % (hv_version, version)
        return "image needs %s/%s/%s, host does not support it" % (arch, hv_type, vm_mode)
