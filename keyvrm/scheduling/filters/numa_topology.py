"""NUMATopologyFilter, as KeyVRM emulates it: the host offers the requested page size.

Only the HugePages part of Nova's NUMA fitting is emulated: ``hw:mem_page_size`` (or the
image's ``hw_mem_page_size``) against ``Hypervisor.hugepages``. Whether enough pages are
free is a capacity question (``capacity.HUGEPAGES_DEPLETED``), not this filter's.
"""

from keyvrm.scheduling.filters.base import HostFilter
from keyvrm.scheduling.filters.base import register
from keyvrm.scheduling import hugepages


@register
class NUMATopologyFilter(HostFilter):
    """A huge-page VM needs a host with pages of the requested size.

    "large" accepts any huge size; a request that cannot be parsed fails every host.
    """

    def rejection(self, host_state, request):
        page_request = request.resources.page_request
        if page_request in (None, hugepages.PAGE_SMALL, hugepages.PAGE_ANY):
            return None
        sizes = [s for s, total in host_state.hugepages_total.items()
                 if total > 0 and s > hugepages.SMALL_PAGE_KB]
        if page_request == hugepages.PAGE_LARGE:
            return None if sizes else "no huge pages on host"
        if isinstance(page_request, int):
            if page_request <= hugepages.SMALL_PAGE_KB or page_request in sizes:
                return None
            return "no %d KiB huge pages on host" % page_request
        return "unparseable hw:mem_page_size %r" % (page_request,)
