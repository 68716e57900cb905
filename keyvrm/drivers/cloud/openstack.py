"""The cloud driver over a real OpenStack region: Nova, Placement, Glance, Neutron, Cinder.

One openstacksdk ``Connection`` on one keystoneauth session; every request names its
microversion, because the parsers rely on the shapes these versions define:

- Nova reads: servers at **2.100** (flavor embedded with extra specs since 2.47, image
  properties embedded since 2.98, scheduler hints since 2.100), aggregates at **2.41**
  (uuid), server groups at **2.64** (``policy``/``rules``), hypervisors at **2.87**
  (paginated by uuid marker since 2.53; ``cpu_info`` as JSON since 2.28), services at
  **2.53** (uuid ids, ``forced_down``), migrations at **2.80** (paginated,
  ``changes-since`` since 2.59), availability zones at 2.1 (unchanged since).
- No read makes Nova call a compute service. Hypervisors stay at 2.87 on purpose: from
  2.88 ``os-hypervisors/detail`` asks every compute for its uptime over RPC, and while a
  dead compute still counts as up (``service_down_time``) the whole request waits
  ``rpc_response_timeout`` and fails, exactly when HA needs the snapshot. 2.88 also
  drops ``cpu_info``, which the image and capabilities filters read. The other reads
  (services, availability zones, aggregates, servers, server groups, migrations) are
  answered from Nova's databases and the servicegroup driver (Nova 34,
  ``nova/api/openstack/compute/``).
- Nova actions: evacuate at **2.95**: no ``force`` (removed in 2.68), so the scheduler
  validates the named host; from 2.95 the evacuated server ends SHUTOFF and the executor
  starts the ones that were running. Live migration at **2.68**: no ``force`` (the
  scheduler validates the host), ``block_migration: auto`` (2.25+). Cold migration at
  **2.56** (the first that takes a ``host``; the scheduler validates it), confirmed with
  ``confirmResize`` once the server is VERIFY_RESIZE. Services are forced
  down / disabled through ``PUT /os-services/{uuid}`` (2.53). Why a migration failed is read,
  only when it did, from the server's instance actions at **2.84** (events with ``details``):
  Nova answers an evacuation or a live migration its scheduler refuses with 200/202, then
  the migration record goes ``error`` and the action's event says "No valid host was found."
- Placement at 1.39 (see ``openstack_placement`` for how per-provider reads are avoided).
- Cinder attachments at volume **3.27** (the attachments API); Neutron (extended port
  bindings) and Glance v2 have no microversions.

The number of requests of a read does not grow with hosts or servers beyond pagination
(page size ``page_size``), except Placement's first read (see ``openstack_placement``).
Servers are read in full once an hour (``servers_full_read_interval_s``) and otherwise
only those Nova changed since the last read (see ``openstack_servers``).
"""

from __future__ import annotations

from typing import Optional

from keystoneauth1 import loading as ks_loading
import openstack

from keyvrm import clock as clock_mod
from keyvrm.drivers.cloud import base
from keyvrm.drivers.cloud import openstack_http as http
from keyvrm.drivers.cloud import openstack_parse as parse
from keyvrm.drivers.cloud import openstack_placement as placement
from keyvrm.drivers.cloud import openstack_servers
from keyvrm.drivers import errors
from keyvrm.model import snapshot as m

SERVERS_MV = "2.100"
AGGREGATES_MV = "2.41"
SERVER_GROUPS_MV = "2.64"
HYPERVISORS_MV = "2.87"  # not 2.88+: see the module docstring
SERVICES_MV = "2.53"
MIGRATIONS_MV = "2.80"
EVACUATE_MV = "2.95"
LIVE_MIGRATE_MV = "2.68"
COLD_MIGRATE_MV = "2.56"  # the first where migrate takes a host
ACTION_MV = "2.53"
VOLUME_MV = "3.27"
ACTIONS_MV = "2.84"  # instance action events carry ``details``, the failed step's message
ACTIONS_PAGE = 10  # newest instance actions read for a migration's fault: the failed one is recent
ZONES_MV = "2.1"  # os-availability-zone has not changed since
COMPUTE_BINARY = "nova-compute"


def _by_source(by_service: dict) -> dict:
    return {m.SOURCE_NOVA: by_service.get("compute", 0),
            m.SOURCE_PLACEMENT: by_service.get("placement", 0),
            m.SOURCE_GLANCE: by_service.get("image", 0)}


class OpenStackCloudDriver(base.CloudDriver):
    """``CloudDriver`` over an openstacksdk connection (see the module docstring)."""

    def __init__(self, connection, *, page_size: int = 1000, clock=None,
                 migration_wait_s: float = 30.0, poll_interval_s: float = 0.2,
                 servers_full_read_interval_s: float = 3600.0):
        self.conn = connection
        self.page_size = page_size
        self.clock = clock or clock_mod.WallClock()
        self.migration_wait_s = migration_wait_s
        self.poll_interval_s = poll_interval_s
        self.requests = http.install_counter(connection.session)
        self.placement = placement.PlacementReader(lambda: http.proxy_of(connection, "placement"),
                                                   self.requests)
        self.server_list = openstack_servers.ServerList(self._server_pages, self.clock,
                                                        servers_full_read_interval_s)
        self._migration_servers = {}  # migration id -> server id, for get_migration

    @property
    def request_counts(self) -> dict:
        """Snapshot source -> requests this driver has sent it (the harvest reads this)."""
        return _by_source(self.requests.by_service())

    @property
    def response_bytes(self) -> dict:
        """Snapshot source -> response body bytes this driver has read from it."""
        return _by_source(self.requests.bytes_by_service())

    # --- helpers ---------------------------------------------------------------------------
    def _proxy(self, service):
        return http.proxy_of(self.conn, service)

    def _nova(self, method, path, microversion, **kwargs):
        return http.call(self._proxy("compute"), method, path, microversion=microversion,
                         counter=self.requests, **kwargs)

    def _services(self, host: Optional[str] = None) -> list:
        params = {"binary": COMPUTE_BINARY}
        if host:
            params["host"] = host
        return self._nova("GET", "/os-services", SERVICES_MV, params=params)["services"]

    def _service_body(self, host: str) -> dict:
        services = self._services(host)
        if not services:
            raise errors.NotFoundInCloud(f"Compute host {host} could not be found.")
        return services[0]

    def _update_service(self, host: str, body: dict):
        service_id = self._service_body(host)["id"]
        updated = self._nova("PUT", f"/os-services/{service_id}", SERVICES_MV, json=body)
        return parse.service(updated["service"])

    def _migrations(self, params: dict) -> list:
        return http.paginate(self._proxy("compute"), "/os-migrations", "migrations",
                             microversion=MIGRATIONS_MV, params=params, page_size=self.page_size,
                             counter=self.requests)

    # --- reads -----------------------------------------------------------------------------
    def list_availability_zones(self):
        body = self._nova("GET", "/os-availability-zone", ZONES_MV)
        return [m.AvailabilityZone(z["zoneName"]) for z in body["availabilityZoneInfo"]]

    def list_aggregates(self):
        body = self._nova("GET", "/os-aggregates", AGGREGATES_MV)
        return [parse.aggregate(a) for a in body["aggregates"]]

    def list_compute_services(self):
        return [parse.service(s) for s in self._services()]

    def get_service(self, host):
        return parse.service(self._service_body(host))

    def list_hypervisors(self):
        """Hypervisors joined with zones, aggregates and Placement traits (by node name).

        Nova's zone list leaves out hosts whose compute service is disabled (a fenced or
        drained host): such a host takes the zone of its aggregates, as Nova places it.
        """
        bodies = http.paginate(self._proxy("compute"), "/os-hypervisors/detail", "hypervisors",
                               microversion=HYPERVISORS_MV, params={}, page_size=self.page_size, counter=self.requests)
        zones = parse.availability_zones(
            self._nova("GET", "/os-availability-zone/detail", ZONES_MV))
        aggregates_of = {}
        for agg in self.list_aggregates():
            for host in agg.hosts:
                aggregates_of.setdefault(host, []).append(agg.name)
                if agg.availability_zone:
                    zones.setdefault(host, agg.availability_zone)
        traits = self.placement.traits()
        return [parse.hypervisor(b, zones, aggregates_of, traits.get(b["hypervisor_hostname"], ()))
                for b in bodies]

    def list_inventories(self):
        """Placement inventories and usages by provider name (the compute node name).

        The node name is the service host for the libvirt (and fake) drivers. Placement
        only: no Nova call, so a Nova outage leaves this source intact.
        """
        return self.placement.inventories()

    def host_inventories(self, host):
        """One provider's inventories and usages: 2 Placement requests (4 uncached), not a region read."""
        return self.placement.host_inventories(host)

    def _server_pages(self, params: dict) -> list:
        return http.paginate(self._proxy("compute"), "/servers/detail", "servers",
                             microversion=SERVERS_MV, params=dict(params, all_tenants="True"),
                             page_size=self.page_size, counter=self.requests)

    def list_servers(self):
        """Every server: the servers Nova changed since the last read, merged (``openstack_servers``)."""
        groups_by_member = {member: g.id for g in self.list_server_groups() for member in g.members}
        return self.server_list.servers(groups_by_member)

    def list_servers_on(self, host):
        """GET /servers/detail?host= (admin), paginated, with the server groups of its servers."""
        groups_by_member = {member: g.id for g in self.list_server_groups() for member in g.members}
        bodies = http.paginate(self._proxy("compute"), "/servers/detail", "servers",
                               microversion=SERVERS_MV, params={"all_tenants": "True", "host": host},
                               page_size=self.page_size, counter=self.requests)
        return [parse.server(b, groups_by_member) for b in bodies]

    def get_server(self, server_id):
        """One GET /servers/{id}; its server group from the body's ``server_groups`` (2.71+)."""
        body = self._nova("GET", f"/servers/{server_id}", SERVERS_MV)["server"]
        groups = body.get("server_groups") or []
        return parse.server(body, {body["id"]: groups[0]} if groups else {})

    def list_server_groups(self):
        bodies = http.paginate_offset(self._proxy("compute"), "/os-server-groups", "server_groups",
                                      microversion=SERVER_GROUPS_MV, params={"all_projects": "True"},
                                      page_size=self.page_size, counter=self.requests)
        return [parse.server_group(b) for b in bodies]

    def list_images(self):
        bodies = http.paginate(self._proxy("image"), "/images", "images", microversion=None,
                               params={}, page_size=self.page_size, counter=self.requests, links_key="next")
        return [parse.image(b) for b in bodies]

    def list_migrations(self, changes_since=None):
        params = {} if changes_since is None else {"changes-since": parse.iso(changes_since)}
        return [parse.migration(b) for b in self._migrations(params)]

    def list_server_migrations(self, server_id):
        return [parse.migration(b) for b in self._migrations({"instance_uuid": server_id})]

    def get_migration(self, migration_id, server_id=None):
        """One record, among its server's (given, or known since this driver started it), else every one's."""
        server_id = server_id or self._migration_servers.get(int(migration_id))
        params = {"instance_uuid": server_id} if server_id else {}
        for body in self._migrations(params):
            if int(body["id"]) == int(migration_id):
                return parse.migration(body)
        raise errors.NotFoundInCloud(f"Migration {migration_id} could not be found.")

    def get_migration_fault(self, migration):
        """The failed event's ``details`` of the server's action that made the record (two requests).

        That action is the newest of the record's kind (``evacuate``, ``live-migration``)
        that began no later than the record was made.
        """
        name = parse.ACTION_OF_MIGRATION.get(migration.migration_type)
        if name is None:
            return None
        path = f"/servers/{migration.server_id}/os-instance-actions"
        actions = self._nova("GET", path, ACTIONS_MV, params={"limit": ACTIONS_PAGE})["instanceActions"]
        action = parse.action_of(actions, name, migration.created_at)
        if action is None:
            return None
        return parse.action_fault(self._nova("GET", f"{path}/{action['request_id']}", ACTIONS_MV)["instanceAction"])

    def list_port_bindings(self, server_id):
        ports = http.call(self._proxy("network"), "GET", "/ports",
                          params={"device_id": server_id, "fields": "id"}, counter=self.requests)["ports"]
        out = []
        for port in ports:  # one server has few ports: per-port reads are bounded
            body = http.call(self._proxy("network"), "GET", f"/ports/{port['id']}/bindings", counter=self.requests)
            out.extend(parse.port_bindings(port["id"], body))
        return out

    def list_volume_attachments(self, server_id):
        body = http.call(self._proxy("block_storage"), "GET", "/attachments/detail",
                         microversion=VOLUME_MV,
                         params={"instance_id": server_id, "all_tenants": "1"}, counter=self.requests)
        return [parse.volume_attachment(a) for a in body.get("attachments", [])]

    # --- actions ---------------------------------------------------------------------------
    def _newest_migration_id(self, server_id, migration_type) -> int:
        page = http.call(self._proxy("compute"), "GET", "/os-migrations", microversion=MIGRATIONS_MV,
                         params={"instance_uuid": server_id, "migration_type": migration_type,
                                 "limit": 1}, counter=self.requests)["migrations"]
        return int(page[0]["id"]) if page else 0

    def _await_migration(self, server_id, migration_type, after_id):
        """The record Nova made for the request just accepted (the conductor may write it late)."""
        deadline = self.clock.time() + self.migration_wait_s
        while True:
            for body in self._migrations({"instance_uuid": server_id,
                                          "migration_type": migration_type}):
                if int(body["id"]) > after_id:
                    record = parse.migration(body)
                    self._migration_servers[record.id] = server_id
                    return record
            if self.clock.time() >= deadline:
                raise errors.CloudError(504, f"{migration_type} of {server_id} was accepted but "
                                             f"no migration record appeared in "
                                             f"{self.migration_wait_s:.0f} s")
            self.clock.sleep(self.poll_interval_s)

    def _act(self, server_id, migration_type, microversion, action):
        before = self._newest_migration_id(server_id, migration_type)
        self._nova("POST", f"/servers/{server_id}/action", microversion, json=action)
        return self._await_migration(server_id, migration_type, before)

    def evacuate(self, server_id, target_host):
        return self._act(server_id, "evacuation", EVACUATE_MV, {"evacuate": {"host": target_host}})

    def live_migrate(self, server_id, target_host, block_migration=base.BLOCK_MIGRATION_AUTO):
        action = {"os-migrateLive": {"host": target_host, "block_migration": block_migration}}
        return self._act(server_id, "live-migration", LIVE_MIGRATE_MV, action)

    def cold_migrate(self, server_id, target_host):
        return self._act(server_id, "migration", COLD_MIGRATE_MV, {"migrate": {"host": target_host}})

    def confirm_resize(self, server_id):
        self._nova("POST", f"/servers/{server_id}/action", ACTION_MV, json={"confirmResize": None})

    def force_down_service(self, host, forced_down=True):
        return self._update_service(host, {"forced_down": forced_down})

    def disable_service(self, host, reason):
        return self._update_service(host, {"status": "disabled", "disabled_reason": reason})

    def enable_service(self, host):
        return self._update_service(host, {"status": "enabled"})

    def stop_server(self, server_id):
        self._nova("POST", f"/servers/{server_id}/action", ACTION_MV, json={"os-stop": None})

    def start_server(self, server_id):
        self._nova("POST", f"/servers/{server_id}/action", ACTION_MV, json={"os-start": None})

    def delete_port_binding(self, port_id, host):
        http.call(self._proxy("network"), "DELETE", f"/ports/{port_id}/bindings/{host}", counter=self.requests)

    def delete_volume_attachment(self, attachment_id):
        http.call(self._proxy("block_storage"), "DELETE", f"/attachments/{attachment_id}",
                  microversion=VOLUME_MV, counter=self.requests)


def connection_from_conf(conf) -> openstack.connection.Connection:
    """An SDK connection from [cloud]: keystoneauth auth + session options, endpoint overrides.

    ``[harvest] cloud`` (a clouds.yaml entry), when set, is used instead.
    """
    group = conf.cloud
    overrides = {f"{service}_endpoint_override": getattr(group, f"{service}_endpoint_override")
                 for service in ("compute", "placement", "image", "network", "block_storage")
                 if getattr(group, f"{service}_endpoint_override")}
    if conf.harvest.cloud:
        return openstack.connect(cloud=conf.harvest.cloud, **overrides)
    auth = ks_loading.load_auth_from_conf_options(conf, "cloud")
    session = ks_loading.load_session_from_conf_options(conf, "cloud", auth=auth)
    return openstack.connection.Connection(session=session, region_name=group.region_name or None,
                                           interface=group.interface, **overrides)


def from_conf(conf, clock=None) -> OpenStackCloudDriver:
    """The driver for the cloud [cloud] names; page size from [harvest] page_size."""
    return OpenStackCloudDriver(connection_from_conf(conf), page_size=conf.harvest.page_size, clock=clock,
                                migration_wait_s=conf.cloud.migration_record_wait,
                                servers_full_read_interval_s=conf.harvest.servers_full_read_interval)


def from_endpoints(endpoints: dict, *, page_size: int = 1000, clock=None,
                   servers_full_read_interval_s: float = 3600.0) -> OpenStackCloudDriver:
    """A driver for a Keystone-less cloud (``auth_type none``) given its endpoint URLs.

    ``endpoints`` maps service type (``compute``, ``placement``, ...) to URL.
    """
    connection = openstack.connection.Connection(
        auth_type="none", **{f"{k}_endpoint_override": v for k, v in endpoints.items()})
    return OpenStackCloudDriver(connection, page_size=page_size, clock=clock,
                                servers_full_read_interval_s=servers_full_read_interval_s)
