"""The kept server list: a full read, then changes-since reads merged, a full read again hourly."""

import pytest

from keyvrm.drivers.cloud import openstack_servers

FLAVOR = {"vcpus": 1, "ram": 512, "disk": 1, "original_name": "m1.tiny"}


def _server(server_id, updated, status="ACTIVE", host="cmp-1", metadata=None):
    return {"id": server_id, "name": server_id, "status": status, "updated": updated, "flavor": FLAVOR,
            "OS-EXT-SRV-ATTR:host": host, "metadata": metadata or {}, "image": ""}


class _Nova:
    """Answers ``/servers/detail`` reads: every server, or those changed since ``changes-since``."""

    def __init__(self, *servers):
        self.servers = {s["id"]: s for s in servers}
        self.reads = []

    def read(self, params):
        self.reads.append(params)
        since = params.get("changes-since")
        return [s for s in self.servers.values() if since is None or s["updated"] >= since]


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now


@pytest.fixture
def nova():
    return _Nova(_server("a", "2026-01-01T10:00:00Z"), _server("b", "2026-01-01T10:05:00Z"))


def _listed(server_list, groups=None):
    return {vm.id: vm for vm in server_list.servers(groups or {})}


def test_after_a_full_read_only_changes_since_the_newest_update_less_the_overlap_are_read(nova):
    clock = _Clock()
    server_list = openstack_servers.ServerList(nova.read, clock, full_read_interval_s=3600)
    assert set(_listed(server_list)) == {"a", "b"}
    nova.servers["a"] = _server("a", "2026-01-01T10:06:00Z", host="cmp-2", metadata={"no_evac": "true"})
    nova.servers["c"] = _server("c", "2026-01-01T10:07:00Z")
    nova.servers["b"] = _server("b", "2026-01-01T10:08:00Z", status="DELETED")
    clock.now += 60
    listed = _listed(server_list)
    assert nova.reads == [{}, {"changes-since": "2026-01-01T10:04:00Z"}]  # 10:05 less 60 s
    assert set(listed) == {"a", "c"}
    assert listed["a"].host == "cmp-2" and listed["a"].metadata == {"no_evac": "true"}


def test_every_server_is_read_again_once_the_full_read_interval_has_passed(nova):
    clock = _Clock()
    server_list = openstack_servers.ServerList(nova.read, clock, full_read_interval_s=3600)
    _listed(server_list)
    del nova.servers["b"]  # archived before any read saw it deleted: no DELETED record
    clock.now += 3599
    assert set(_listed(server_list)) == {"a", "b"}
    clock.now += 1
    assert set(_listed(server_list)) == {"a"}
    assert nova.reads[-1] == {}


def test_an_interval_of_zero_reads_every_server_every_time(nova):
    server_list = openstack_servers.ServerList(nova.read, _Clock(), full_read_interval_s=0)
    for _ in range(3):
        _listed(server_list)
    assert nova.reads == [{}, {}, {}]


def test_group_membership_comes_from_each_read_not_from_the_kept_servers(nova):
    server_list = openstack_servers.ServerList(nova.read, _Clock(), full_read_interval_s=3600)
    assert _listed(server_list, {"a": "sg-1"})["a"].server_group_id == "sg-1"
    assert _listed(server_list, {})["a"].server_group_id is None  # the group was deleted


def test_an_empty_region_is_read_in_full_until_a_server_gives_nova_s_time():
    nova = _Nova()
    server_list = openstack_servers.ServerList(nova.read, _Clock(), full_read_interval_s=3600)
    _listed(server_list)
    nova.servers["a"] = _server("a", "2026-01-01T10:00:00Z")
    assert set(_listed(server_list)) == {"a"}
    assert nova.reads == [{}, {}]
