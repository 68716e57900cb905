"""The shape of a filter and the registry that maps Nova filter names to our classes."""

from __future__ import annotations

from typing import Optional

_REGISTRY: dict = {}


def register(cls):
    """Class decorator: make ``cls`` available under its (Nova) class name."""
    _REGISTRY[cls.__name__] = cls
    return cls


def registered() -> dict:
    """Filter name -> class, for every registered filter."""
    return dict(_REGISTRY)


class HostFilter:
    """One Nova filter rule: does a host pass for a request, and if not, why not.

    Subclasses implement ``rejection``; parameters that Nova reads from nova.conf are
    constructor arguments here, never global config. A filter that needs an input KeyVRM
    cannot know (no Nova API reports it) lets the host pass and names that input in
    ``unchecked``; such a filter sets ``may_leave_unchecked``.
    """

    may_leave_unchecked = False

    def rejection(self, host_state, request) -> Optional[str]:
        """Return a sentence saying why ``host_state`` fails ``request``, or None."""
        raise NotImplementedError

    def unchecked(self, host_state, request) -> tuple:
        """The inputs this filter could not check for ``request`` on ``host_state``.

        (what, why) pairs, e.g. ("img_hv_type=kvm", "the hypervisors API says QEMU for
        kvm and qemu hosts alike"); each was treated as passing. () for most filters.
        """
        return ()

    def host_passes(self, host_state, request) -> bool:
        """Whether ``host_state`` passes this filter for ``request``."""
        return self.rejection(host_state, request) is None

    @property
    def name(self) -> str:
        return type(self).__name__
