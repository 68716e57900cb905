"""Requests per harvest cycle do not grow with hosts beyond pagination: 5 then 500 computes.

The harvest is the engine's (``assemble.harvest`` over the OpenStack driver) against a
fake cloud of its own (real Nova API, conductor, scheduler, fake computes, Placement),
with a small page size so that every paginated list spans pages. Each cycle's requests
per service must equal a fixed number plus the pages of each list, computed from the page
size and the number of objects this test created (servers: all of them in a driver's
first cycle, then those Nova changed within a minute of its newest change); the figures,
with the bytes decoded per service, print with ``-s``. Costs 108 s on a 2-core machine
with other work on it (load 2.5), 144 s at load 4: ~60 s of CPU for the fake cloud to start 495 computes (Nova's
resource tracker and Placement's provider creation, ~0.12 s each), and the first cycle at
500 computes reading 1,000 providers' inventories and traits (~10 ms each in Placement).

The full-host test adds a compute to the session's cloud and fills it with servers.
"""

import time

import pytest

from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.cloud import openstack_parse as parse
from keyvrm.drivers.cloud import openstack_servers
from keyvrm.harvest import assemble
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from tests.fakecloud import client
from tests.nova import conftest as c

PAGE_SIZE = 10
SMALL, LARGE = 5, 500
SERVERS = 12  # 2 pages of 10: Nova boots ~2 servers/s here, so few
GROUPS = 2
# The test counts requests, not seconds: on a loaded machine the fake cloud's Nova takes more
# than the harvest's 60 s for 50 pages of 500 hypervisors (seen at load 17), so the sources
# get five minutes.
SOURCE_TIMEOUT_S = 300.0
# Nova's timers for 500 computes: a heartbeat every 2 s each would be 250 DB writes/s.
NOVA_TIMERS = (600, 120)

# Fixed requests of one cycle, per service, on top of the pages of each paginated list:
# Nova: os-availability-zone, os-availability-zone/detail, os-services, os-aggregates twice
# (the aggregates read and the hypervisors' join); Placement: /resource_providers twice
# (the inventories read and the hypervisors' traits) and one /allocation_candidates.
NOVA_FIXED = 5
PLACEMENT_FIXED = 3


def pages(count, page_size=PAGE_SIZE):
    """Requests to list ``count`` objects: count // page_size + 1.

    Nova and Glance link a next page whenever a page is full (an exact multiple ends on an
    empty page); the offset-paginated server groups stop at the first short page.
    """
    return count // page_size + 1


def expected_requests(hypervisors, servers_read, groups, images, migrations=0):
    """Requests per service of a cycle that reads ``servers_read`` servers.

    Every provider's generation unchanged and none full; ``servers_read``: all servers,
    or those changed lately.
    """
    return {m.SOURCE_NOVA: NOVA_FIXED + pages(hypervisors) + pages(servers_read)
            + 2 * pages(groups)  # the server groups read, and the servers' group join
            + pages(migrations),
            m.SOURCE_PLACEMENT: PLACEMENT_FIXED,
            m.SOURCE_GLANCE: pages(images)}


def recently_changed(cloud):
    """Servers a changes-since read returns: updated within OVERLAP_S of the newest update."""
    other = openstack.from_endpoints(cloud.service_endpoints)
    servers = c.nova(other, "GET", "/servers/detail", params={"all_tenants": "True"})["servers"]
    updated = [parse.posix(s["updated"]) for s in servers]
    return sum(1 for u in updated if u >= max(updated) - openstack_servers.OVERLAP_S)


@pytest.fixture(scope="module")
def region(tmp_path_factory):
    """A fake cloud of 5 computes with 12 servers (one multi-create) and 2 server groups."""
    c.require_nova()
    cloud = client.start(tmp_path_factory.mktemp("scalecloud"), computes=SMALL,
                         nova_timers=NOVA_TIMERS)
    drv = openstack.from_endpoints(cloud.service_endpoints)
    for i in range(GROUPS):
        c.server_group(drv, "scale-%d" % i, "soft-anti-affinity")
    body = {"server": {"name": "scale", "imageRef": c.IMAGE, "flavorRef": c.FLAVOR,
                       "networks": "none", "min_count": SERVERS, "max_count": SERVERS}}
    c.nova(drv, "POST", "/servers", c.BOOT_MV, json=body)
    c.wait_for(lambda: len(c.nova(drv, "GET", "/servers/detail", c.BOOT_MV, params={
        "all_tenants": "True", "status": "ACTIVE"})["servers"]) == SERVERS, timeout_s=120)
    yield cloud
    cloud.stop()


def _cycle(driver):
    requests, body_bytes = dict(driver.request_counts), dict(driver.response_bytes)
    started = time.perf_counter()
    snap = assemble.harvest(assemble.HarvestSources(cloud=driver, timeout_s=SOURCE_TIMEOUT_S), settings.AppConfig(),
                            now_s=time.time())
    took_s = time.perf_counter() - started
    assert all(snap.source_ok(s) for s in (m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE)), \
        snap.sources
    return (snap, {k: v - requests[k] for k, v in driver.request_counts.items()},
            {k: v - body_bytes[k] for k, v in driver.response_bytes.items()}, took_s)


def _measure(cloud, computes):
    """(first cycle's requests, a steady cycle's, servers it read) of a new driver at this size.

    The first cycle reads every server; the steady one, those changed within a minute of
    the newest change.
    """
    driver = openstack.from_endpoints(cloud.service_endpoints, page_size=PAGE_SIZE)
    images = len(cloud.endpoints["images"])
    first = _cycle(driver)
    steady = _cycle(driver)
    changed = recently_changed(cloud)
    for name, (snap, requests, body_bytes, took_s) in (("first", first), ("steady", steady)):
        assert len(snap.hypervisors) == computes and len(snap.vms) == SERVERS
        assert len(snap.server_groups) == GROUPS and len(snap.images) == images
        print("%d computes, %s cycle: %s requests, %s bytes, %.2f s"
              % (computes, name, requests, body_bytes, took_s))
    assert first[1][m.SOURCE_NOVA] == expected_requests(computes, SERVERS, GROUPS, images)[m.SOURCE_NOVA]
    assert steady[1] == expected_requests(computes, changed, GROUPS, images)
    print("%d computes: %d of %d servers changed within %.0f s of the newest change" % (
        computes, changed, SERVERS, openstack_servers.OVERLAP_S))
    return first[1], steady[1], changed


@pytest.mark.slow
def test_requests_per_cycle_differ_between_5_and_500_computes_only_by_pages(region):
    first_small, steady_small, changed_small = _measure(region, SMALL)
    region.add_computes(LARGE - SMALL)
    first_large, steady_large, changed_large = _measure(region, LARGE)

    page_difference = pages(LARGE) - pages(SMALL) + pages(changed_large) - pages(changed_small)
    assert steady_large[m.SOURCE_NOVA] - steady_small[m.SOURCE_NOVA] == page_difference
    assert steady_large[m.SOURCE_PLACEMENT] == steady_small[m.SOURCE_PLACEMENT]
    assert steady_large[m.SOURCE_GLANCE] == steady_small[m.SOURCE_GLANCE]
    # A new driver's first cycle also reads every provider's inventories and traits, once.
    for first, steady, computes in ((first_small, steady_small, SMALL),
                                    (first_large, steady_large, LARGE)):
        assert first[m.SOURCE_PLACEMENT] == steady[m.SOURCE_PLACEMENT] + 2 * computes


def test_a_full_host_costs_one_usages_read_and_only_moved_providers_are_reread(fake_cloud, driver):
    [host] = fake_cloud.add_computes(1)  # empty, up and enabled whatever earlier tests did
    flavor = c.nova(driver, "POST", "/flavors", "2.55", json={"flavor": {
        "name": "fill-%s" % host, "vcpus": 10, "ram": 64, "disk": 1}})["flavor"]["id"]
    driver.list_inventories()  # cache filled
    for i in range(4):  # 4 x 10 vCPU = the host's VCPU capacity (10 x allocation ratio 4.0)
        c.boot(driver, "fill-%d" % i, host, flavor_id=flavor)
    before = driver.request_counts[m.SOURCE_PLACEMENT]
    inventories = driver.list_inventories()
    # providers + allocation candidates + (inventories + traits) of the moved provider + its usages
    assert driver.request_counts[m.SOURCE_PLACEMENT] - before == 5
    [provider] = [p for p in c.placement(driver, "/resource_providers")["resource_providers"]
                  if p["name"] == host]
    usages = c.placement(driver, "/resource_providers/%s/usages" % provider["uuid"])["usages"]
    assert inventories[host][m.VCPU].used == usages[m.VCPU] == 40
    assert inventories[host][m.VCPU].free == 0
    # the executor's read of its target: the provider by name and its usages, no region read
    before = driver.request_counts[m.SOURCE_PLACEMENT]
    assert driver.host_inventories(host) == inventories[host]
    assert driver.request_counts[m.SOURCE_PLACEMENT] - before == 2
