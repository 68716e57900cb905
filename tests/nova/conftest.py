"""The session's fake cloud (real Nova + Placement in a subprocess) and helpers on it.

Runs in tox env ``nova`` (nova and openstack-placement installed). Without them the tests
skip, except in CI (CI=true), where that is a failure.
"""

import os
import time

import pytest

from keyvrm.db import api as db_api
from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.cloud import openstack_http
from keyvrm.flows import harvest
from tests.fakecloud import client

IMAGE = "155d900f-4e14-4e4c-a73d-069cbf4541e6"
FLAVOR = "1"  # m1.tiny
BOOT_MV = "2.74"  # the first that takes a host at boot


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_nova():
    """Nova and Placement must be importable: skip without them, fail in CI (CI=true)."""
    try:
        import nova  # noqa: F401
        import placement  # noqa: F401
    except ImportError as exc:
        if _in_ci():
            pytest.fail("the nova tests need nova and openstack-placement (tox -e nova): %s" % exc)
        pytest.skip("nova/openstack-placement not installed (run tox -e nova)")


@pytest.fixture(scope="session")
def fake_cloud(tmp_path_factory):
    """Five fake computes ``compute000``..``compute004``, started once per session.

    Before any server exists (Nova refuses to change the zone of a host with servers):
    aggregate ``agg-read-a`` = compute000-001 as zone ``az-read`` with metadata, and
    ``agg-read-b`` = compute002-004 in the default zone.
    """
    require_nova()
    cloud = client.start(tmp_path_factory.mktemp("fakecloud"), computes=5)
    drv = openstack.from_endpoints(cloud.service_endpoints)
    aggregate(drv, "agg-read-a", ["compute000", "compute001"], zone="az-read",
              metadata={"keyvrm": "yes"})
    aggregate(drv, "agg-read-b", ["compute002", "compute003", "compute004"])
    yield cloud
    cloud.stop()


@pytest.fixture
def driver(fake_cloud):
    """A fresh OpenStack driver on the fake cloud (its own session and request counter)."""
    return openstack.from_endpoints(fake_cloud.service_endpoints)


def nova(driver, method, path, microversion="2.100", **kwargs):
    """A raw Nova call through the driver's session (what the tests compare against)."""
    return openstack_http.call(driver.conn.compute, method, path, microversion=microversion,
                               **kwargs)


def wait_for(predicate, timeout_s=30.0, interval_s=0.1):
    """Poll ``predicate`` until it returns a true value; that value, or AssertionError."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in %.0f s" % timeout_s)
        time.sleep(interval_s)


def server(driver, server_id):
    return nova(driver, "GET", "/servers/%s" % server_id)["server"]


def placement(driver, path):
    """A raw Placement GET through the driver's session."""
    return openstack_http.call(driver.conn.placement, "GET", path, microversion="1.39")


def boot(driver, name, host, group_id=None, metadata=None, flavor_id=FLAVOR):
    """Boot one server on ``host`` (one at a time: parallel anti-affinity boots race); wait ACTIVE."""
    body = {"server": {"name": name, "imageRef": IMAGE, "flavorRef": flavor_id, "networks": "none",
                       "host": host, "metadata": metadata or {}}}
    if group_id:
        body["os:scheduler_hints"] = {"group": group_id}
    server_id = nova(driver, "POST", "/servers", BOOT_MV, json=body)["server"]["id"]
    wait_for(lambda: server(driver, server_id)["status"] in ("ACTIVE", "ERROR"))
    assert server(driver, server_id)["status"] == "ACTIVE", server(driver, server_id).get("fault")
    return server_id


def server_group(driver, name, policy):
    body = {"server_group": {"name": name, "policy": policy}}
    return nova(driver, "POST", "/os-server-groups", "2.64", json=body)["server_group"]["id"]


def aggregate(driver, name, hosts, zone=None, metadata=None):
    body = {"aggregate": {"name": name, "availability_zone": zone}}
    agg = nova(driver, "POST", "/os-aggregates", "2.41", json=body)["aggregate"]
    for host in hosts:
        nova(driver, "POST", "/os-aggregates/%s/action" % agg["id"], "2.41",
             json={"add_host": {"host": host}})
    if metadata:
        nova(driver, "POST", "/os-aggregates/%s/action" % agg["id"], "2.41",
             json={"set_metadata": {"metadata": metadata}})
    return agg["id"]


def host_of(driver, server_id):
    return server(driver, server_id)["OS-EXT-SRV-ATTR:host"]


def ha_event(res, aggregate):
    """A cycle's start for an HA run: harvested (KeyVRM learns ``aggregate``), marked HA with shared storage, NOOP off.

    Returns (the snapshot's id, a new HA event's id).
    """
    snapshot_id = harvest.Harvest(res).execute()
    db_api.update_aggregate_config(res.db, aggregate, {"marker": "HA", "no_op_mode": False, "storage_mode": "shared"},
                                   "test")
    return snapshot_id, db_api.create_event(res.db, aggregate, "HA", "HA")
