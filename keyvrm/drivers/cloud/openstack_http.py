"""HTTP plumbing of the OpenStack cloud driver: one call, its errors, its pages, its count.

Every request goes through an openstacksdk service proxy (a keystoneauth ``Adapter`` on
the connection's one session) with an explicit microversion. An HTTP error answer
becomes ``CloudError(status, message)`` (404: ``NotFoundInCloud``); no answer
(connection refused, timeout, no endpoint) becomes ``DriverUnavailable``.
"""

from __future__ import annotations

import collections
import threading
from typing import Optional
from urllib import parse

from keystoneauth1 import exceptions as ks_exc

from keyvrm.drivers import errors


class RequestCounter:
    """Counts HTTP requests: all the session sends, and the driver's own per service.

    The total comes from a requests response hook, so the SDK's version discovery
    counts too; ``add`` counts the driver's calls per service type and ``add_bytes``
    the response bodies the driver decoded.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._total = 0
        self._by_service = collections.Counter()
        self._bytes_by_service = collections.Counter()

    def __call__(self, response, *args, **kwargs):
        with self._lock:
            self._total += 1
        return response

    def add(self, service_type: str):
        """Count one driver call to ``service_type``."""
        with self._lock:
            self._by_service[service_type] += 1

    def add_bytes(self, service_type: str, count: int):
        """Count ``count`` bytes of response body the driver read from ``service_type``."""
        with self._lock:
            self._bytes_by_service[service_type] += count

    def total(self) -> int:
        """Requests the session sent since the counter was installed."""
        with self._lock:
            return self._total

    def by_service(self) -> dict:
        """Driver calls per service type (``compute``, ``placement``, ``image``, ...)."""
        with self._lock:
            return dict(self._by_service)

    def bytes_by_service(self) -> dict:
        """Response body bytes the driver read per service type."""
        with self._lock:
            return dict(self._bytes_by_service)


def install_counter(session) -> RequestCounter:
    """Attach a ``RequestCounter`` to a keystoneauth session's requests session."""
    counter = RequestCounter()
    session.session.hooks.setdefault("response", []).append(counter)
    return counter


_NO_ANSWER = (ks_exc.ConnectFailure, ks_exc.ConnectTimeout, ks_exc.RequestTimeout,
              ks_exc.EndpointNotFound, ks_exc.DiscoveryFailure, ks_exc.UnknownConnectionError)


def proxy_of(connection, service: str):
    """The connection's proxy for ``service``; its first use runs version discovery.

    openstacksdk asserts (AssertionError) when the catalog has no such endpoint.
    """
    try:
        return getattr(connection, service)
    except (AssertionError,) + _NO_ANSWER as exc:
        raise errors.DriverUnavailable(f"{service}: no usable endpoint ({exc})") from exc


def _message(response) -> str:
    """The error text of an OpenStack error body (Nova, Placement, Neutron, Cinder shapes)."""
    try:
        body = response.json()
    except ValueError:
        return (response.text or response.reason or "").strip()[:500]
    if isinstance(body, dict):
        if "errors" in body and body["errors"]:  # Placement
            return str(body["errors"][0].get("detail", "")).strip()
        if "NeutronError" in body:
            return str(body["NeutronError"].get("message", ""))
        for value in body.values():  # Nova/Cinder: {"badRequest": {"message": ...}}
            if isinstance(value, dict) and "message" in value:
                return str(value["message"])
    return str(body)[:500]


def call(proxy, method: str, path: str, *, microversion: Optional[str] = None,
         params: Optional[dict] = None, json=None, ok=(200, 201, 202, 204), counter=None):
    """One request; returns the decoded JSON body (None when empty) or raises a driver error."""
    if counter is not None:
        counter.add(proxy.service_type)
    kwargs = {"raise_exc": False, "params": params or {}}
    if microversion:
        kwargs["microversion"] = microversion
    if json is not None:
        kwargs["json"] = json
    try:
        response = proxy.request(path, method, **kwargs)
    except _NO_ANSWER as exc:
        raise errors.DriverUnavailable(f"{method} {path}: no answer ({exc})") from exc
    if response.status_code not in ok:
        message = f"{method} {path}: {_message(response)}"
        if response.status_code == 404:
            raise errors.NotFoundInCloud(message)
        raise errors.CloudError(response.status_code, message)
    if counter is not None:
        counter.add_bytes(proxy.service_type, len(response.content))
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def marker_of(links) -> Optional[str]:
    """The ``marker`` of a response's ``rel=next`` link, or None on the last page."""
    for link in links or ():
        if link.get("rel") == "next":
            query = parse.parse_qs(parse.urlsplit(link["href"]).query)
            markers = query.get("marker")
            if markers:
                return markers[0]
    return None


def paginate(proxy, path: str, key: str, *, microversion: Optional[str], params: dict,
             page_size: int, links_key: Optional[str] = None, counter=None) -> list:
    """Every item of a marker-paginated list (Nova ``<key>_links``, Glance ``next``)."""
    items = []
    query = dict(params, limit=page_size)
    while True:
        body = call(proxy, "GET", path, microversion=microversion, params=query, counter=counter)
        page = body.get(key, [])
        items.extend(page)
        if links_key == "next":  # Glance: {"next": "/v2/images?marker=..."}
            marker = marker_of([{"rel": "next", "href": body["next"]}]) if body.get("next") else None
        else:
            marker = marker_of(body.get(links_key or f"{key}_links"))
        if not marker or not page:
            return items
        query = dict(query, marker=marker)


def paginate_offset(proxy, path: str, key: str, *, microversion: str, params: dict,
                    page_size: int, counter=None) -> list:
    """Every item of an offset-paginated Nova list (``os-server-groups``)."""
    items = []
    offset = 0
    while True:
        page = call(proxy, "GET", path, microversion=microversion,
                    params=dict(params, limit=page_size, offset=offset),
                    counter=counter).get(key, [])
        items.extend(page)
        if len(page) < page_size:
            return items
        offset += len(page)
