"""Requests per harvest cycle do not grow with hosts: 5 then 50 fake computes, same count.

Runs last in the session (it adds 45 computes to the shared fake cloud). Prints the
figures for the notes: requests, harvest time and snapshot size (JSON and zlib) at both sizes.
"""

import time

from keyvrm.drivers.cloud import openstack
from keyvrm.harvest import assemble
from keyvrm.model import codec
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from tests.nova import conftest as c


def _cycle(driver):
    sources = assemble.HarvestSources(cloud=driver)
    before = driver.requests.total()
    started = time.perf_counter()
    snap = assemble.harvest(sources, settings.AppConfig(), now_s=time.time())
    took_s = time.perf_counter() - started
    return snap, driver.requests.total() - before, took_s


def _measure(driver, hosts):
    cold, cold_requests, _ = _cycle(driver)  # first cycle: discovery + Placement cache fill
    snap, requests, took_s = _cycle(driver)
    assert all(snap.source_ok(s) for s in (m.SOURCE_NOVA, m.SOURCE_PLACEMENT, m.SOURCE_GLANCE))
    assert len([h for h in snap.hypervisors if h.name.startswith("compute")]) == hosts
    print("%d computes: %d requests per cycle (first cycle %d), harvest %.2f s, snapshot %d B JSON,"
          " %d B zlib" % (hosts, requests, cold_requests, took_s, len(codec.dumps(snap)),
                          len(codec.compress(snap))))
    return requests


def test_requests_per_cycle_are_the_same_at_5_and_50_computes(fake_cloud, driver):
    computes = len(fake_cloud.control("GET", "/health")["hosts"])
    at_5 = _measure(driver, computes)
    fake_cloud.add_computes(50 - computes)
    c.wait_for(lambda: len(driver.list_inventories()) >= 50, timeout_s=60)
    at_50 = _measure(openstack.from_endpoints(fake_cloud.service_endpoints), 50)  # cold cache
    assert at_5 == at_50


def test_a_full_host_costs_one_usages_read_and_only_moved_providers_are_reread(fake_cloud, driver):
    host = fake_cloud.control("GET", "/health")["hosts"][-1]
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
