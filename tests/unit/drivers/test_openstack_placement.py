"""The Placement reader's per-provider reads: each moved provider once, even when asked twice
at once, and one host's inventories without reading the region."""

import collections
import json
import threading
import time

from keyvrm.drivers.cloud import openstack_http
from keyvrm.drivers.cloud import openstack_placement

PROVIDERS = [{"uuid": "rp-%d" % i, "name": "host%d" % i, "generation": 1} for i in range(20)]


class _Response:
    def __init__(self, body):
        self.status_code = 200
        self.content = json.dumps(body).encode()

    def json(self):
        return json.loads(self.content)


class _SlowPlacement:
    """Answers per-provider reads after a delay, so two callers overlap; records the paths."""

    service_type = "placement"

    def __init__(self, delay_s=0.02):
        self.delay_s = delay_s
        self.paths = collections.Counter()
        self._lock = threading.Lock()

    def request(self, path, method, **kwargs):
        with self._lock:
            self.paths[path] += 1
        time.sleep(self.delay_s)
        if path == "/resource_providers":
            name = (kwargs.get("params") or {}).get("name")
            return _Response({"resource_providers": [p for p in PROVIDERS if p["name"] == name]})
        if path.endswith("/usages"):
            return _Response({"usages": {"VCPU": 3}, "resource_provider_generation": 1})
        if path.endswith("/inventories"):
            return _Response({"inventories": {"VCPU": {"total": 8}}, "resource_provider_generation": 1})
        return _Response({"traits": ["COMPUTE_NODE"], "resource_provider_generation": 1})


def _reader(proxy):
    return openstack_placement.PlacementReader(lambda: proxy, openstack_http.RequestCounter())


def test_two_callers_at_once_read_each_provider_once():
    proxy = _SlowPlacement()
    reader = _reader(proxy)
    results = []
    callers = [threading.Thread(target=lambda: results.append(reader.details(PROVIDERS)))
               for _ in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert results[0] == results[1]
    assert len(proxy.paths) == 2 * len(PROVIDERS)
    assert set(proxy.paths.values()) == {1}


def test_a_provider_whose_generation_moved_is_read_again_and_the_others_are_not():
    proxy = _SlowPlacement(delay_s=0)
    reader = _reader(proxy)
    reader.details(PROVIDERS)
    moved = [dict(p, generation=2) if p["uuid"] == "rp-3" else p for p in PROVIDERS]
    reader.details(moved)
    assert proxy.paths["/resource_providers/rp-3/inventories"] == 2
    assert sum(proxy.paths.values()) == 2 * len(PROVIDERS) + 2


def test_one_host_s_inventories_cost_two_requests_once_its_inventories_are_cached():
    proxy = _SlowPlacement(delay_s=0)
    reader = _reader(proxy)
    first = reader.host_inventories("host7")
    assert sum(proxy.paths.values()) == 4  # by name, inventories, traits, usages
    proxy.paths.clear()
    assert reader.host_inventories("host7") == first
    assert proxy.paths == {"/resource_providers": 1, "/resource_providers/rp-7/usages": 1}
    assert (first["VCPU"].total, first["VCPU"].used) == (8, 3)
    assert reader.host_inventories("no-such-host") == {}
