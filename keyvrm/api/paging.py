"""Pagination by ``limit`` and ``marker`` with a ``next`` link, as other OpenStack APIs do."""

import urllib.parse

from keyvrm.api import route

LIMIT = route.Param("limit", {"type": "integer", "minimum": 1},
                    "Largest number of items to return (capped by [api] max_limit).")
MARKER = route.Param("marker", {"type": "string", "minLength": 1},
                     "Return items after this one (the last item of the previous page).")
PARAMS = (LIMIT, MARKER)


def page_size(call, query):
    """The page size to read: ``limit`` capped by ``[api] max_limit``."""
    maximum = call.conf.api.max_limit
    return min(query.get("limit", maximum), maximum)


def collection(call, name, items, limit, marker_of):
    """``{name: items, "links": [...]}`` with a ``next`` link when the page is full."""
    links = []
    if items and len(items) >= limit:
        params = {k: v for k, v in call.request.GET.items() if k != "marker"}
        params["marker"] = marker_of(items[-1])
        params["limit"] = str(limit)
        links.append({"rel": "next", "href": "%s%s?%s" % (
            call.request.application_url, call.request.path, urllib.parse.urlencode(sorted(params.items())))})
    return {name: items, "links": links}
