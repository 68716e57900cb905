"""What HugePages a VM asks for (``hw:mem_page_size``) and which host page size serves it."""

from __future__ import annotations

from typing import Optional

SMALL_PAGE_KB = 4
PAGE_SMALL = "small"
PAGE_LARGE = "large"
PAGE_ANY = "any"

_UNITS_KB = {"KB": 1, "K": 1, "MB": 1024, "M": 1024, "GB": 1024 * 1024, "G": 1024 * 1024}


def requested_page_size(flavor, image=None) -> Optional[object]:
    """Return the page-size request of a VM: None, "small", "large", "any" or a size in KiB.

    The flavor's ``hw:mem_page_size`` wins over the image's ``hw_mem_page_size``, as in
    Nova. A value that cannot be parsed is returned as the raw string so that a filter can
    reject hosts with an explicit reason rather than silently ignoring it.
    """
    value = flavor.extra_specs.get("hw:mem_page_size")
    if value is None and image is not None:
        value = image.properties.get("hw_mem_page_size")
    if value is None:
        return None
    text = str(value).strip()
    lowered = text.lower()
    if lowered in (PAGE_SMALL, PAGE_LARGE, PAGE_ANY):
        return lowered
    upper = text.upper()
    for unit in ("KB", "MB", "GB", "K", "M", "G"):
        if upper.endswith(unit) and upper[:-len(unit)].strip().isdigit():
            return int(upper[:-len(unit)]) * _UNITS_KB[unit]
    if text.isdigit():
        return int(text)
    return text


def wants_hugepages(page_request) -> bool:
    """The request can only be served by huge pages (not by ordinary 4 KiB memory)."""
    if page_request == PAGE_LARGE:
        return True
    return isinstance(page_request, int) and page_request > SMALL_PAGE_KB


def pages_needed(ram_mb: int, page_size_kb: int) -> int:
    """Pages of ``page_size_kb`` that hold ``ram_mb`` (rounded up)."""
    ram_kb = ram_mb * 1024
    return -(-ram_kb // page_size_kb)


def serving_page_size(page_request, free_pages_by_size: dict, ram_mb: int) -> Optional[int]:
    """Pick the page size (KiB) of a host that serves a huge-page request, or None.

    "large" takes the largest size with enough free pages; an explicit size needs exactly
    that size. ``free_pages_by_size`` maps page size (KiB) to free pages.
    """
    if page_request == PAGE_LARGE:
        for size_kb in sorted(free_pages_by_size, reverse=True):
            if size_kb > SMALL_PAGE_KB and free_pages_by_size[size_kb] >= pages_needed(
                    ram_mb, size_kb):
                return size_kb
        return None
    if isinstance(page_request, int) and page_request in free_pages_by_size:
        if free_pages_by_size[page_request] >= pages_needed(ram_mb, page_request):
            return page_request
    return None
