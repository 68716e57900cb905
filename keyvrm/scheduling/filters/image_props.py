"""ImagePropertiesFilter: the host runs the image's architecture, hypervisor type and VM mode.

Nova matches the image's ``hw_architecture``, ``img_hv_type`` and ``hw_vm_mode`` (legacy
names ``architecture``, ``hypervisor_type``, ``vm_mode``; canonicalised) against the
compute node's ``supported_instances``, a list of (arch, hv type, vm mode) triples that
no Nova API returns. KeyVRM rebuilds, per component, what the APIs do say:

- architecture: the host CPU's (``cpu_info["arch"]`` of the hypervisors API up to 2.87,
  or the Placement trait ``HW_ARCH_*``), the guest architectures libvirt has an emulator
  for (Placement traits ``COMPUTE_ARCH_*``) and, on a libvirt x86_64 host, i686 (libvirt
  lists an i686 guest on every x86_64 host);
- hypervisor type and VM mode: from the API's ``hypervisor_type`` through ``DRIVERS``.
  libvirt says "QEMU" for KVM and plain QEMU hosts alike: it always runs ``qemu``
  guests, runs ``kvm`` guests only where /dev/kvm exists (which no API says), and only in
  ``hvm`` mode; Nova's fake driver ("fake") runs exactly (x86_64, fake, hvm).

Each component is supported, unsupported or unknown. An unsupported one rejects the
host, as Nova would. An unknown one (a hypervisor type not in ``DRIVERS``, ``kvm`` on a
libvirt host, a foreign architecture the traits cannot name, a host that reports no
architecture, a name Nova does not know) **passes** and is named in ``unchecked``; the
planners turn those into one ``filter_input_unknown`` reason per plan. Nova validates the
host again when KeyVRM asks it to evacuate or migrate there, so an unknown that was
wrong costs a failed attempt, never a wrong placement; rejecting instead would leave a
VM without a target although Nova placed it in that aggregate.

``img_hv_requested_version`` (against ``hypervisor_version``) and ``hw_maxphysaddr_bits``
(against ``cpu_info["maxphysaddr"]["bits"]``) are checked as Nova checks them, once the
three components pass; a version or bit count the host does not report passes, in Nova too.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from typing import Optional

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register

_PREDICATE = re.compile(r"^\s*(<=|>=|<|>|!=|==)\s*([^\s,]+)\s*$")
_COMPARE = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
            "!=": operator.ne, "==": operator.eq}

# nova.objects.fields: the names each canonicalize() accepts (after its aliases).
ARCHITECTURES = frozenset((
    "alpha", "armv6", "armv7l", "armv7b", "aarch64", "cris", "i686", "ia64", "lm32", "m68k",
    "microblaze", "microblazeel", "mips", "mipsel", "mips64", "mips64el", "openrisc",
    "parisc", "parisc64", "ppc", "ppcle", "ppc64", "ppc64le", "ppcemb", "s390", "s390x",
    "sh4", "sh4eb", "sparc", "sparc64", "unicore32", "x86_64", "xtensa", "xtensaeb"))
_ARCH_ALIASES = {"i386": "i686", "i486": "i686", "i586": "i686", "x86_32": "i686",
                 "x86_32p": "i686", "amd64": "x86_64"}
HV_TYPES = frozenset((
    "baremetal", "bhyve", "docker", "fake", "hyperv", "ironic", "kqemu", "kvm", "lxc", "lxd",
    "openvz", "parallels", "phyp", "qemu", "test", "uml", "vbox", "vz", "vmware", "xen",
    "zvm", "prsm"))
_HV_ALIASES = {"xapi": "xen"}
VM_MODES = frozenset(("hvm", "xen", "uml", "exe"))
_VM_MODE_ALIASES = {"pv": "xen", "hv": "hvm", "baremetal": "hvm"}

# os-traits COMPUTE_ARCH_*: the guest architectures libvirt's emulation traits can name.
EMULATION_TRAIT_ARCHES = frozenset(("aarch64", "ppc64le", "mipsel", "s390x", "x86_64"))
HOST_ARCH_TRAIT = "HW_ARCH_"
EMULATION_ARCH_TRAIT = "COMPUTE_ARCH_"


def canonical(name, valid, aliases) -> Optional[str]:
    """Nova's canonical form of an architecture/hv type/vm mode name; None if Nova has none."""
    if name is None:
        return None
    lowered = aliases.get(str(name).lower(), str(name).lower())
    return lowered if lowered in valid else None


@dataclasses.dataclass(frozen=True)
class DriverSupport:
    """What every host of one hypervisors-API ``hypervisor_type`` runs, per its Nova driver.

    ``hv_types``: run by every such host; ``maybe_hv_types``: by some, and the API does not
    say which; ``native_only_hv_types``: only for the host's own architectures (KVM).
    ``arches``: fixed guest architectures, or None to take them from the host (cpu_info,
    traits), ``companion_arches`` adding those a host arch always brings along.
    """

    hv_types: frozenset
    vm_modes: frozenset
    maybe_hv_types: frozenset = frozenset()
    native_only_hv_types: frozenset = frozenset()
    arches: Optional[frozenset] = None
    companion_arches: tuple = ()  # ((host arch, frozenset of guest arches), ...)
    reports_emulation: bool = False  # COMPUTE_ARCH_* traits list every emulated guest arch


DRIVERS = {
    "qemu": DriverSupport(hv_types=frozenset({"qemu"}), vm_modes=frozenset({"hvm"}),
                          maybe_hv_types=frozenset({"kvm"}),
                          native_only_hv_types=frozenset({"kvm"}),
                          companion_arches=(("x86_64", frozenset({"i686"})),),
                          reports_emulation=True),
    "fake": DriverSupport(hv_types=frozenset({"fake"}), vm_modes=frozenset({"hvm"}),
                          arches=frozenset({"x86_64"})),
}

SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown"


@dataclasses.dataclass(frozen=True)
class _Component:
    status: str
    why: str = ""


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


def _traits_arches(traits, prefix) -> frozenset:
    return frozenset(canonical(t[len(prefix):], ARCHITECTURES, _ARCH_ALIASES)
                     for t in traits if t.startswith(prefix)) - {None}


def _host_arches(hypervisor, driver):
    """(native arches, emulated arches) the host reports; native empty if it reports none."""
    native = set(_traits_arches(hypervisor.traits, HOST_ARCH_TRAIT))
    cpu_arch = canonical(hypervisor.cpu_arch, ARCHITECTURES, _ARCH_ALIASES)
    if cpu_arch:
        native.add(cpu_arch)
    if driver is not None:
        for host_arch, guests in driver.companion_arches:
            if host_arch in native:
                native |= guests
    return frozenset(native), _traits_arches(hypervisor.traits, EMULATION_ARCH_TRAIT)


def _arch_support(arch, raw, hypervisor, driver, hv_type_name) -> _Component:
    if arch is None:
        return _Component(UNKNOWN, "%r is not an architecture Nova knows" % raw)
    if driver is not None and driver.arches is not None:
        if arch in driver.arches:
            return _Component(SUPPORTED)
        return _Component(UNSUPPORTED, "hypervisor type %s runs %s only" % (
            hv_type_name, ", ".join(sorted(driver.arches))))
    native, emulated = _host_arches(hypervisor, driver)
    if arch in native or arch in emulated:
        return _Component(SUPPORTED)
    if not native and not emulated:
        return _Component(UNKNOWN, "the host reports no CPU architecture")
    if (driver is not None and driver.reports_emulation and emulated
            and arch in EMULATION_TRAIT_ARCHES):
        return _Component(UNSUPPORTED, "host runs %s" % ", ".join(sorted(native | emulated)))
    return _Component(UNKNOWN, "host CPU is %s; whether %s emulates %s is not reported" % (
        ", ".join(sorted(native)) or "unreported", hv_type_name or "its hypervisor", arch))


def _hv_type_support(hv_type, raw, arch, hypervisor, driver, hv_type_name) -> _Component:
    if hv_type is None:
        return _Component(UNKNOWN, "%r is not a hypervisor type Nova knows" % raw)
    if driver is None:
        return _Component(UNKNOWN, "what hypervisor type %r runs is not known to KeyVRM"
                          % hv_type_name)
    if hv_type in driver.native_only_hv_types and arch is not None:
        native, _ = _host_arches(hypervisor, driver)
        if native and arch not in native:
            return _Component(UNSUPPORTED, "%s runs only the host's own architecture" % hv_type)
    if hv_type in driver.hv_types:
        return _Component(SUPPORTED)
    if hv_type in driver.maybe_hv_types:
        return _Component(UNKNOWN, "the hypervisors API says %s for %s hosts alike" % (
            hv_type_name, " and ".join(sorted(driver.hv_types | driver.maybe_hv_types))))
    return _Component(UNSUPPORTED, "hypervisor type %s runs %s guests" % (
        hv_type_name, ", ".join(sorted(driver.hv_types | driver.maybe_hv_types))))


def _vm_mode_support(vm_mode, raw, driver, hv_type_name) -> _Component:
    if vm_mode is None:
        return _Component(UNKNOWN, "%r is not a VM mode Nova knows" % raw)
    if driver is None:
        return _Component(UNKNOWN, "the VM modes of hypervisor type %r are not known to KeyVRM"
                          % hv_type_name)
    if vm_mode in driver.vm_modes:
        return _Component(SUPPORTED)
    return _Component(UNSUPPORTED, "hypervisor type %s runs %s only" % (
        hv_type_name, ", ".join(sorted(driver.vm_modes))))


def _maxphysaddr_bits(capabilities) -> Optional[int]:
    cpu_info = capabilities.get("cpu_info")
    if not isinstance(cpu_info, dict):
        return None
    bits = (cpu_info.get("maxphysaddr") or {}).get("bits")
    try:
        return int(bits) if bits else None
    except (TypeError, ValueError):
        return None


@register
class ImagePropertiesFilter(HostFilter):
    """The host runs the image's architecture, hypervisor type, VM mode and version.

    ``default_architecture`` is Nova's ``[filter_scheduler]
    image_properties_default_architecture`` (used when the image names none). What is
    checked and what passes unchecked: see the module docstring.
    """

    may_leave_unchecked = True

    def __init__(self, default_architecture=None):
        self.default_architecture = default_architecture

    def _requested(self, props):
        arch = props.get("hw_architecture") or props.get("architecture") or self.default_architecture
        hv_type = props.get("img_hv_type") or props.get("hypervisor_type")
        vm_mode = props.get("hw_vm_mode") or props.get("vm_mode")
        return arch, hv_type, vm_mode

    def _assess(self, host_state, request):
        """(rejection or None, unchecked (what, why) pairs) for one host."""
        props = request.image_properties
        raw_arch, raw_hv, raw_mode = self._requested(props)
        if not (raw_arch or raw_hv or raw_mode):
            return None, ()
        hypervisor = host_state.hypervisor
        hv_type_name = hypervisor.hypervisor_type or ""
        driver = DRIVERS.get(hv_type_name.lower())
        arch = canonical(raw_arch, ARCHITECTURES, _ARCH_ALIASES)
        components = []
        if raw_arch:
            components.append(("hw_architecture=%s" % raw_arch,
                               _arch_support(arch, raw_arch, hypervisor, driver, hv_type_name)))
        if raw_hv:
            hv_type = canonical(raw_hv, HV_TYPES, _HV_ALIASES)
            components.append(("img_hv_type=%s" % raw_hv, _hv_type_support(
                hv_type, raw_hv, arch, hypervisor, driver, hv_type_name)))
        if raw_mode:
            vm_mode = canonical(raw_mode, VM_MODES, _VM_MODE_ALIASES)
            components.append(("hw_vm_mode=%s" % raw_mode,
                               _vm_mode_support(vm_mode, raw_mode, driver, hv_type_name)))
        for what, component in components:
            if component.status == UNSUPPORTED:
                return "image needs %s, %s" % (what, component.why), ()
        version = props.get("img_hv_requested_version")
        hv_version = hypervisor.hypervisor_version
        if version and hv_version and not version_satisfies(hv_version, version):
            return "hypervisor version %s does not satisfy %s" % (hv_version, version), ()
        bits_wanted = props.get("hw_maxphysaddr_bits")
        bits = _maxphysaddr_bits(host_state.capabilities)
        if bits_wanted and bits and bits < int(bits_wanted):
            return "host has %d physical address bits, image needs %s" % (bits, bits_wanted), ()
        return None, tuple((what, c.why) for what, c in components if c.status == UNKNOWN)

    def rejection(self, host_state, request):
        return self._assess(host_state, request)[0]

    def unchecked(self, host_state, request):
        return self._assess(host_state, request)[1]
