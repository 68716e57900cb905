"""KeyVRM v1 client over a keystoneauth1 Adapter: catalog lookup by service type, region-aware.

Service type ``vm-resource-manager``. Registered types were taken: ``instance-ha`` is
Masakari's and ``resource-optimization`` Watcher's, and KeyVRM may run beside either;
the service-types authority asks for a name saying what the service does, not the
project's name. Register the *unversioned* root in the catalog, e.g.
``openstack endpoint create --region RegionOne vm-resource-manager public http://HOST:9877``;
the client adds ``/v1``.

The API is microversioned (``OpenStack-API-Version: vm-resource-manager X.Y``). The
client sends one version with every request: the one it is given, or else the highest
of ``KNOWN_VERSIONS`` the server serves, read once from the server's version document.
"""

import re
import urllib.parse

from keystoneauth1 import adapter as ks_adapter

SERVICE_TYPE = "vm-resource-manager"
API_VERSION = "1"
VERSION_HEADER = "OpenStack-API-Version"
# The microversions whose responses this client reads, oldest first (the server's
# keyvrm/api/rest_api_version_history.rst says what each changed).
KNOWN_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12")
REASON_LIST = "1.1"  # events' and cycle outcomes' reasons as entries (reasons, more_reasons), not text
WHAT_IF = "1.3"  # POST /v1/aggregates/{name}/what-if
FAILOVER = "1.4"  # GET /v1/aggregates/{name}/failover
FAILURE_DOMAINS = "1.5"  # its answer's failure_domains (racks) and failure_domain_error
LB_LEVEL = "1.6"  # aggregates' lb_level (shown and accepted) and lb_level_overridden
LB_PERSISTENCE = "1.7"  # aggregates' lb_persistence and lb_min_gain (shown and accepted)
DRAIN = "1.8"  # POST /v1/hypervisors/{name}/drain, a restore's failback, aggregates' failback
LATEST_OPERATION = "1.9"  # recommendations carry latest_operation, their newest journal line
# GET /v1/vms; events' since; hypervisors' availability_zone and sort_dir; aggregates' sort_dir and host_count
PORTAL_LISTS = "1.10"
ALLOW_COLD = "1.11"  # a drain's allow_cold: cold-migrate what a live migration cannot move
# hypervisors' fencing steps with method, outcome and RFC 3339 times; their service with seen_at
FENCING_RECORD = "1.12"
# The aggregate config fields a server accepts only from a microversion on.
FIELDS_SINCE = {"lb_level": LB_LEVEL, "lb_persistence": LB_PERSISTENCE, "lb_min_gain": LB_PERSISTENCE,
                "failback": DRAIN}
_VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


def version_tuple(text):
    """``"1.10"`` as ``(1, 10)`` (versions compare as tuples), or ValueError if it is not ``X.Y``."""
    found = _VERSION.fullmatch(text or "")
    if found is None:
        raise ValueError("%r is not a microversion (X.Y)" % (text,))
    return int(found.group(1)), int(found.group(2))


def pick_version(server_min, server_max, known=KNOWN_VERSIONS):
    """The highest of ``known`` within the server's [``server_min``, ``server_max``], or None if none is.

    A server that gives no range (older than microversions) serves 1.0 only.
    """
    low, high = version_tuple(server_min or "1.0"), version_tuple(server_max or "1.0")
    inside = [v for v in known if low <= version_tuple(v) <= high]
    return max(inside, key=version_tuple) if inside else None


class ClientError(Exception):
    """An error answer of the API: HTTP ``status``, machine ``code``, ``detail`` and ``field`` if any."""

    def __init__(self, status, code, detail, field=None, request_id=None):
        super().__init__("%s (HTTP %d, %s)" % (detail, status, code))
        self.status, self.code, self.detail = status, code, detail
        self.field, self.request_id = field, request_id


def _error(response):
    try:
        error = response.json()["errors"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return ClientError(response.status_code, "http_error", response.text.strip()[:500] or response.reason)
    return ClientError(response.status_code, error.get("code", "http_error"), error.get("detail", ""),
                       error.get("field"), error.get("request_id"))


class Client:
    """The v1 API. ``session`` (keystoneauth1) or a ready ``adapter``; region and interface pick the endpoint.

    ``api_version``: the microversion to send (``"1.0"``, one of ``KNOWN_VERSIONS``); None
    negotiates it on the first request (see ``api_version``).
    """

    def __init__(self, session=None, region_name=None, interface="public", endpoint_override=None,
                 adapter=None, api_version=None, **adapter_options):
        if api_version is not None and api_version not in KNOWN_VERSIONS:
            raise ValueError("api_version: %r is not a microversion this client reads (%s)"
                             % (api_version, ", ".join(KNOWN_VERSIONS)))
        self._api_version = api_version
        self.adapter = adapter or ks_adapter.Adapter(
            session=session, service_type=SERVICE_TYPE, region_name=region_name, interface=interface,
            endpoint_override=endpoint_override, **adapter_options)

    @property
    def api_version(self):
        """The microversion this client sends: the one it was given, else the one negotiated with the server.

        Negotiating reads the version document (``GET /v1``) once and takes the highest
        of ``KNOWN_VERSIONS`` the server serves; ``ClientError`` (406) if it serves none.
        """
        if self._api_version is None:
            response = self.adapter.request("/v1", "GET", raise_exc=False, headers={"Accept": "application/json"})
            if response.status_code >= 400:
                raise _error(response)
            version = response.json()["version"]
            picked = pick_version(version.get("min_version"), version.get("max_version"))
            if picked is None:
                raise ClientError(406, "microversion_not_acceptable",
                                  "the server serves microversions %s to %s; this client reads %s"
                                  % (version.get("min_version"), version.get("max_version"),
                                     ", ".join(KNOWN_VERSIONS)))
            self._api_version = picked
        return self._api_version

    def _request(self, method, path, json=None, params=None):
        kwargs = {"raise_exc": False, "headers": {
            "Accept": "application/json", VERSION_HEADER: "%s %s" % (SERVICE_TYPE, self.api_version)}}
        if json is not None:
            kwargs["json"] = json
        if params:
            kwargs["params"] = {k: v for k, v in params.items() if v is not None}
        response = self.adapter.request("/v1" + path, method, **kwargs)
        if response.status_code >= 400:
            raise _error(response)
        return response.json() if response.content else None

    def _list(self, path, key, limit=None, marker=None, **filters):
        """Items of a paged list: one page when ``limit`` is given, else every page (following ``next``)."""
        params = dict(filters, limit=limit, marker=marker)
        items = []
        while True:
            body = self._request("GET", path, params=params)
            items.extend(body[key])
            following = [link["href"] for link in body.get("links", []) if link["rel"] == "next"]
            if limit is not None or not following:
                return items
            query = urllib.parse.parse_qs(urllib.parse.urlparse(following[0]).query)
            params = {k: v[0] for k, v in query.items()}
            params.pop("limit", None)

    # config
    def get_config(self):
        """The global business config."""
        return self._request("GET", "/config")["config"]

    def update_config(self, **changes):
        """Change global fields; the API refuses the whole change if one field is bad."""
        return self._request("PATCH", "/config", json=changes)["config"]

    def list_config_audit(self, scope=None, target=None, limit=None):
        """Audit rows, newest first."""
        params = {"scope": scope, "target": target, "limit": limit}
        return self._request("GET", "/config/audit", params=params)["audit"]

    # availability zones and aggregates
    def list_availability_zones(self):
        return self._request("GET", "/availability-zones")["availability_zones"]

    def list_aggregates(self, availability_zone=None, include_deleted=None, limit=None, marker=None, sort_dir=None):
        """Aggregates by name; ``sort_dir="desc"`` (API 1.10) from the last down, the page before ``marker``."""
        deleted = None if include_deleted is None else str(bool(include_deleted)).lower()
        return self._list("/aggregates", "aggregates", limit, marker, availability_zone=availability_zone,
                          include_deleted=deleted, sort_dir=sort_dir)

    def get_aggregate(self, name):
        return self._request("GET", "/aggregates/%s" % urllib.parse.quote(name, safe=""))["aggregate"]

    def aggregate_load(self, name):
        """The aggregate's load per host from the newest snapshot, judged with its LB settings."""
        return self._request("GET", "/aggregates/%s/load" % urllib.parse.quote(name, safe=""))["aggregate_load"]

    def what_if(self, name, fail):
        """The plan HA would make now if the hosts ``fail`` of the aggregate died (changes nothing; API 1.3)."""
        if version_tuple(self.api_version) < version_tuple(WHAT_IF):
            raise ClientError(406, "microversion_not_acceptable", "what-if needs microversion %s; this client"
                              " speaks %s to this server" % (WHAT_IF, self.api_version))
        return self._request("POST", "/aggregates/%s/what-if" % urllib.parse.quote(name, safe=""),
                             json={"fail": list(fail)})["what_if"]

    def aggregate_failover(self, name):
        """The aggregate's failover tolerance against its reserve, planned now (API 1.4; its racks from 1.5)."""
        if version_tuple(self.api_version) < version_tuple(FAILOVER):
            raise ClientError(406, "microversion_not_acceptable", "failover needs microversion %s; this client"
                              " speaks %s to this server" % (FAILOVER, self.api_version))
        return self._request("GET", "/aggregates/%s/failover" % urllib.parse.quote(name, safe=""))["failover"]

    def update_aggregate(self, name, **changes):
        """Change an aggregate's config; a field of ``FIELDS_SINCE`` needs its microversion (``lb_level`` 1.6)."""
        for field in sorted(changes):
            since = FIELDS_SINCE.get(field)
            if since is not None and version_tuple(self.api_version) < version_tuple(since):
                raise ClientError(406, "microversion_not_acceptable", "%s needs microversion %s; this client"
                                  " speaks %s to this server" % (field, since, self.api_version))
        return self._request("PATCH", "/aggregates/%s" % urllib.parse.quote(name, safe=""),
                             json=changes)["aggregate"]

    # events, recommendations, operations
    def list_events(self, limit=None, marker=None, **filters):
        return self._list("/events", "events", limit, marker, **filters)

    def get_event(self, event_id):
        return self._request("GET", "/events/%s" % event_id)["event"]

    def list_recommendations(self, limit=None, marker=None, **filters):
        return self._list("/recommendations", "recommendations", limit, marker, **filters)

    def get_recommendation(self, recommendation_id):
        return self._request("GET", "/recommendations/%s" % recommendation_id)["recommendation"]

    def run_recommendation(self, recommendation_id):
        """Queue a manual recommendation (202): the result is read later with get_recommendation."""
        return self._request("POST", "/recommendations/%s/run" % recommendation_id)

    def cancel_recommendation(self, recommendation_id):
        return self._request("POST", "/recommendations/%s/cancel" % recommendation_id)

    def list_operations(self, recommendation_id):
        return self._request("GET", "/recommendations/%s/operations" % recommendation_id)["operations"]

    # VMs
    def list_vms(self, limit=None, marker=None, **filters):
        """The VMs KeyVRM holds a state for, by id (API 1.10); filters ``locked``, ``state``, ``sort_dir``."""
        if version_tuple(self.api_version) < version_tuple(PORTAL_LISTS):
            raise ClientError(406, "microversion_not_acceptable", "the VM list needs microversion %s; this client"
                              " speaks %s to this server" % (PORTAL_LISTS, self.api_version))
        if isinstance(filters.get("locked"), bool):
            filters["locked"] = str(filters["locked"]).lower()
        return self._list("/vms", "vms", limit, marker, **filters)

    def get_vm(self, vm_id):
        return self._request("GET", "/vms/%s" % vm_id)["vm"]

    def list_vm_history(self, vm_id):
        return self._request("GET", "/vms/%s/history" % vm_id)["history"]

    def unlock_vm(self, vm_id):
        return self._request("POST", "/vms/%s/unlock" % vm_id)

    # hypervisors
    def list_hypervisors(self, limit=None, marker=None, **filters):
        return self._list("/hypervisors", "hypervisors", limit, marker, **filters)

    def get_hypervisor(self, name):
        return self._request("GET", "/hypervisors/%s" % urllib.parse.quote(name, safe=""))["hypervisor"]

    def drain_hypervisor(self, name, reason, allow_cold=False):
        """Ask the engine to drain an ok host (API 1.8): its service disabled with ``reason``, its VMs moved.

        ``allow_cold`` (API 1.11): also cold-migrate the VMs a live migration cannot move.
        """
        needed = ("allow_cold", ALLOW_COLD) if allow_cold else ("drain", DRAIN)
        if version_tuple(self.api_version) < version_tuple(needed[1]):
            raise ClientError(406, "microversion_not_acceptable", "%s needs microversion %s; this client"
                              " speaks %s to this server" % (needed + (self.api_version,)))
        body = {"reason": reason, "allow_cold": True} if allow_cold else {"reason": reason}
        return self._request("POST", "/hypervisors/%s/drain" % urllib.parse.quote(name, safe=""),
                             json=body)["hypervisor"]

    def restore_hypervisor(self, name, failback=False):
        """Return a held host to service; ``failback`` (API 1.8): then bring back the VMs KeyVRM moved off it."""
        if failback and version_tuple(self.api_version) < version_tuple(DRAIN):
            raise ClientError(406, "microversion_not_acceptable", "failback needs microversion %s; this client"
                              " speaks %s to this server" % (DRAIN, self.api_version))
        return self._request("POST", "/hypervisors/%s/restore" % urllib.parse.quote(name, safe=""),
                             json={"failback": True} if failback else {})["hypervisor"]

    # snapshots and cycles
    def list_snapshots(self, limit=None, marker=None):
        return self._list("/snapshots", "snapshots", limit, marker)

    def get_snapshot(self, snapshot_id):
        return self._request("GET", "/snapshots/%s" % snapshot_id)["snapshot"]

    def download_snapshot(self, snapshot_id):
        return self._request("GET", "/snapshots/%s/data" % snapshot_id)

    def list_cycles(self, limit=None, marker=None, status=None):
        return self._list("/cycles", "cycles", limit, marker, status=status)

    def get_cycle(self, cycle_id):
        return self._request("GET", "/cycles/%s" % cycle_id)["cycle"]

    def request_cycle(self):
        """Ask for a cycle now (202); the cycle appears in list_cycles."""
        return self._request("POST", "/cycles")
