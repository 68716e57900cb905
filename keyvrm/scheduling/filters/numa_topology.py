"""NUMATopologyFilter, as KeyVRM emulates it: the host offers the requested page size.

Only the HugePages part of Nova's NUMA fitting is emulated: ``hw:mem_page_size`` (or the
image's ``hw_mem_page_size``) against ``Hypervisor.hugepages``. Whether enough pages are
free is a capacity question (``capacity.HUGEPAGES_DEPLETED``), not this filter's.

No Nova or Placement API reports a host's huge pages (nor its NUMA topology): from the
OpenStack driver ``Hypervisor.hugepages`` is None. On such a host a huge-page request
**passes**, named in ``unchecked`` (the planners report it once per plan); Nova checks
the host itself when asked to move the VM there. A host whose pages are reported (the
simulator, a future metrics source) is checked.
"""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register
from keyvrm.scheduling import hugepages


@register
class NUMATopologyFilter(HostFilter):
    """A huge-page VM needs a host with pages of the requested size.

    "large" accepts any huge size; a request that cannot be parsed fails every host.
    """

    may_leave_unchecked = True

    def unchecked(self, host_state, request):
        if request.resources.wants_hugepages and not host_state.hugepages_known:
            return (("hw:mem_page_size=%s" % request.resources.page_request,
                     "no Nova or Placement API reports a host's huge pages"),)
        return ()

    def rejection(self, host_state, request):
        page_request = request.resources.page_request
        if page_request in (None, hugepages.PAGE_SMALL, hugepages.PAGE_ANY):
            return None
        if isinstance(page_request, str) and page_request != hugepages.PAGE_LARGE:
            return "unparseable hw:mem_page_size %r" % (page_request,)
        if not request.resources.wants_hugepages or not host_state.hugepages_known:
            return None
        sizes = [s for s, total in host_state.hugepages_total.items()
                 if total > 0 and s > hugepages.SMALL_PAGE_KB]
        if page_request == hugepages.PAGE_LARGE:
            return None if sizes else "no huge pages on host"
        return None if page_request in sizes else "no %d KiB huge pages on host" % page_request
