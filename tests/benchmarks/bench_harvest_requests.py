"""Benchmark: what one harvest cycle costs against real Nova and Placement, extrapolated to a region.

The OpenStack driver harvests the fake cloud (tests/fakecloud: real Nova API, conductor,
scheduler, fake computes, Placement) through ``assemble.harvest`` as keyvrm-engine does,
page size 1000. Measured, per API path: requests and response bytes in a first and a
steady cycle, objects per answer, bytes per object, and the fake cloud's answer time.
Then each read of the driver is replayed from the recorded answers (no network, no server)
to time the driver's own decoding and parsing per object (CPU time), and the memory of a parsed
server. Last, the figures are extrapolated to ``--hosts`` hypervisors and ``--vms``
servers (default 10,000 and 200,000): requests per cycle by service with their pages,
bytes and parse time (servers: those changed lately, ``--changed-servers``, with every
server read hourly). The admin guide's "Harvest at region scale" table quotes them.

Needs Nova and Placement (the nova tox env's Python), e.g.:

    .tox/nova/bin/python tests/benchmarks/bench_harvest_requests.py --computes 500 --servers 40
    ... --endpoints-file DIR/endpoints.json   # a fake cloud already running
"""

import argparse
import collections
import json
import re
import sys
import tempfile
import time
import tracemalloc
import types

from keyvrm.drivers.cloud import openstack
from keyvrm.drivers.cloud import openstack_http
from keyvrm.drivers.cloud import openstack_parse
from keyvrm.harvest import assemble
from keyvrm.model import settings
from tests.fakecloud import client
from tests.nova import conftest as c

PAGE_SIZE = 1000
NETWORK = "3cb9bc59-5699-4588-a4b1-b87f96708bc6"  # the Neutron fixture's network_1
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# API path -> what one object of its answer is, and how many there are in the answer body
OBJECTS = {
    "/os-hypervisors/detail": ("hypervisor", lambda b: len(b["hypervisors"])),
    "/os-services": ("hypervisor", lambda b: len(b["services"])),
    "/os-availability-zone/detail": ("hypervisor", lambda b: sum(
        len(z.get("hosts") or {}) for z in b["availabilityZoneInfo"])),
    "/os-aggregates": ("hypervisor", lambda b: sum(len(a["hosts"]) for a in b["aggregates"])),
    "/servers/detail": ("server", lambda b: len(b["servers"])),
    "/os-server-groups": ("server group", lambda b: len(b["server_groups"])),
    "/os-migrations": ("migration", lambda b: len(b["migrations"])),
    "/images": ("image", lambda b: len(b["images"])),
    "/resource_providers": ("hypervisor", lambda b: len(b["resource_providers"])),
    "/allocation_candidates": ("hypervisor", lambda b: len(b["provider_summaries"])),
}
PAGINATED = ("/os-hypervisors/detail", "/servers/detail", "/os-server-groups", "/os-migrations", "/images")


class _Recorder:
    """Wraps the driver's service proxies: every answer kept with its path, params and time."""

    def __init__(self):
        self.calls = []
        self.original = openstack_http.proxy_of

    def proxy_of(self, connection, service):
        proxy, calls = self.original(connection, service), self.calls

        class Recording:
            service_type = proxy.service_type

            def request(self, path, method, **kwargs):
                started = time.perf_counter()
                response = proxy.request(path, method, **kwargs)
                calls.append({"service": proxy.service_type, "method": method, "path": path,
                              "template": _UUID.sub("{uuid}", path), "params": kwargs.get("params") or {},
                              "status": response.status_code, "content": response.content,
                              "elapsed_s": time.perf_counter() - started})
                return response

        return Recording()


class _Replay:
    """A proxy answering from recorded calls (by method, path and params; changes-since ignored)."""

    def __init__(self, service, calls):
        self.service_type = service
        self.answers = {self._key(c["method"], c["path"], c["params"]): c
                        for c in calls if c["service"] == service}

    @staticmethod
    def _key(method, path, params):
        return method, path, tuple(sorted((k, str(v)) for k, v in params.items() if k != "changes-since"))

    def request(self, path, method, **kwargs):
        call = self.answers[self._key(method, path, kwargs.get("params") or {})]
        return types.SimpleNamespace(status_code=call["status"], content=call["content"],
                                     json=lambda: json.loads(call["content"]))


def _aggregates(cloud, drv, count):
    """``count`` aggregates (with metadata) sharing every compute host, if there are none yet."""
    if count and not c.nova(drv, "GET", "/os-aggregates", "2.41")["aggregates"]:
        hosts = cloud.control("GET", "/health")["hosts"]
        for i in range(count):
            c.aggregate(drv, "bench-agg-%d" % i, hosts[i::count], metadata={"keyvrm": "HA+LB"})


def _workload(cloud, servers, groups, aggregates):
    """Aggregates over every host, ``servers`` servers (one port each) and 2 live migrations.

    Servers carry metadata; a pair of them is in each of ``groups`` server groups.
    """
    drv = openstack.from_endpoints(cloud.service_endpoints)
    _aggregates(cloud, drv, aggregates)
    existing = c.nova(drv, "GET", "/servers/detail", c.BOOT_MV, params={"all_tenants": "True"})["servers"]
    missing = servers - len(existing)
    if missing <= 0:
        return
    group_ids = [c.server_group(drv, "bench-%d" % i, "soft-anti-affinity") for i in range(groups)]
    batches = [(2, {"group": g}) for g in group_ids] + [(missing - 2 * groups, None)]
    for count, hints in batches:
        body = {"server": {"name": "bench", "imageRef": c.IMAGE, "flavorRef": c.FLAVOR,
                           "networks": [{"uuid": NETWORK}], "min_count": count, "max_count": count,
                           "metadata": {"keyvrm_no_evac": "false", "owner": "team-a"}}}
        if hints:
            body["os:scheduler_hints"] = hints
        c.nova(drv, "POST", "/servers", c.BOOT_MV, json=body)
    c.wait_for(lambda: len(c.nova(drv, "GET", "/servers/detail", c.BOOT_MV, params={
        "all_tenants": "True", "status": "ACTIVE"})["servers"]) >= servers, timeout_s=1800, interval_s=1)
    moved = c.nova(drv, "GET", "/servers/detail", c.BOOT_MV, params={"all_tenants": "True", "limit": 2})
    for server in moved["servers"]:
        c.nova(drv, "POST", "/servers/%s/action" % server["id"], "2.68",
               json={"os-migrateLive": {"host": None, "block_migration": "auto"}})


def _cycle(driver, recorder):
    recorder.calls.clear()
    started = time.perf_counter()
    # no source timeout: a read cut off would go on in the background and into the next cycle
    snap = assemble.harvest(assemble.HarvestSources(cloud=driver, timeout_s=3600.0), settings.AppConfig(),
                            now_s=time.time())
    return snap, list(recorder.calls), time.perf_counter() - started


def _by_path(calls):
    out = collections.OrderedDict()
    for call in sorted(calls, key=lambda c: (c["service"], c["template"])):
        row = out.setdefault((call["service"], call["template"]), {
            "requests": 0, "bytes": 0, "objects": 0, "elapsed_s": 0.0})
        row["requests"] += 1
        row["bytes"] += len(call["content"])
        row["elapsed_s"] += call["elapsed_s"]
        if call["template"] in OBJECTS and call["content"]:
            row["objects"] += OBJECTS[call["template"]][1](json.loads(call["content"]))
    return out


def _full_page_of_servers(calls):
    """The calls with every servers answer made a page of PAGE_SIZE - 1 servers.

    The servers are the largest recorded answer's, repeated with new ids.
    """
    answers = [json.loads(c["content"])["servers"] for c in calls if c["template"] == "/servers/detail"]
    servers = max(answers, key=len)
    grown = json.dumps({"servers": [dict(servers[i % len(servers)], id="%08x-0000-4000-8000-000000000000" % i)
                                    for i in range(PAGE_SIZE - 1)]}).encode()
    return [dict(c, content=grown) if c["template"] == "/servers/detail" else c for c in calls]


def _replayed_driver(calls):
    connection = types.SimpleNamespace(session=types.SimpleNamespace(session=types.SimpleNamespace(hooks={})))
    proxies = {s: _Replay(s, calls) for s in ("compute", "placement", "image")}
    openstack_http.proxy_of = lambda conn, service: proxies[service]
    driver = openstack.OpenStackCloudDriver(connection, page_size=PAGE_SIZE, servers_full_read_interval_s=0)
    driver.list_inventories()  # the Placement cache filled, as in a steady cycle
    return driver


def _parse_times(driver, counts, repeat):
    """Read name -> (seconds per object, objects, object kind): best of ``repeat`` replayed reads."""
    reads = {"hypervisors (+ zones, aggregates, traits)": (driver.list_hypervisors, "hypervisor"),
             "inventories (Placement)": (driver.list_inventories, "hypervisor"),
             "services": (driver.list_compute_services, "hypervisor"),
             "servers (+ server groups)": (driver.list_servers, "server"),
             "server groups": (driver.list_server_groups, "server group"),
             "migrations": (lambda: driver.list_migrations(changes_since=0.0), "migration"),
             "images": (driver.list_images, "image")}
    out = {}
    for name, (read, kind) in reads.items():
        best = min(_timed(read) for _ in range(repeat))
        out[name] = (best / max(counts[kind], 1), counts[kind], kind)
    return out


def _timed(read):
    """CPU seconds of one read (this process's CPU: other processes on the machine do not count)."""
    started = time.process_time()
    read()
    return time.process_time() - started


def _vm_memory(calls):
    """Bytes of Python heap per parsed server (what a cache of the server list would hold)."""
    bodies = [s for call in calls if call["template"] == "/servers/detail"
              for s in json.loads(call["content"])["servers"]]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    vms = [openstack_parse.server(b, {}) for b in bodies]
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return size / max(len(vms), 1)


def _extrapolate(rows, first_rows, parse, target, changed_servers):
    """Print a steady cycle at ``target`` objects: reads as measured, pages and bytes per object.

    Bytes per object come from the first cycle (every list read in full); the servers read
    of a steady cycle returns ``changed_servers`` (changes-since), and every server hourly.
    """
    print("\nExtrapolated steady cycle, page size %d: %s; %d servers changed in the minute before"
          " the newest change" % (PAGE_SIZE, ", ".join("%d %ss" % (n, kind) for kind, n in target.items()),
                                  changed_servers))
    print("%-10s %-28s %9s %14s %10s" % ("service", "path", "requests", "bytes", "B/object"))
    totals = collections.Counter()
    for (service, path), row in rows.items():
        full = first_rows.get((service, path), row)
        kind = OBJECTS.get(path, (None,))[0]
        per_object = full["bytes"] / full["objects"] if full["objects"] else None
        reads = row["requests"]  # every measured list fits one page of 1000
        if kind is None or per_object is None:  # a fixed-size answer (zone names)
            requests, nbytes = reads, row["bytes"]
        else:
            objects = changed_servers if path == "/servers/detail" else target[kind]
            pages = objects // PAGE_SIZE + 1 if path in PAGINATED else 1
            requests, nbytes = reads * pages, per_object * objects * reads
        totals[service, "requests"] += requests
        totals[service, "bytes"] += nbytes
        print("%-10s %-28s %9d %14.0f %10s" % (service, path, requests, nbytes,
                                               "%.0f" % per_object if per_object else "-"))
    for service in ("compute", "placement", "image"):
        print("%-10s %-28s %9d %14.0f" % (service, "TOTAL", totals[service, "requests"],
                                          totals[service, "bytes"]))
    servers = first_rows["compute", "/servers/detail"]
    print("hourly full read of the servers instead: %d requests, %.0f bytes" % (
        target["server"] // PAGE_SIZE + 1, servers["bytes"] / servers["objects"] * target["server"]))
    for (service, path), row in first_rows.items():
        if "{uuid}" in path:
            print("a new driver's first cycle adds %s: %d requests, %.0f bytes each" % (
                path, target["hypervisor"], row["bytes"] / row["requests"]))
    print("\nDriver decode + parse CPU time (replayed answers, best run), extrapolated:")
    for name, (per_object_s, measured, kind) in parse.items():
        print("  %-42s %7.1f us/object (%d measured) -> %6.2f s for %d" % (
            name, per_object_s * 1e6, measured, per_object_s * target[kind], target[kind]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--computes", type=int, default=500)
    parser.add_argument("--servers", type=int, default=40)
    parser.add_argument("--groups", type=int, default=5, help="server groups of 2 members each")
    parser.add_argument("--aggregates", type=int, default=5, help="aggregates sharing every host")
    parser.add_argument("--endpoints-file", help="use this running fake cloud instead of starting one")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--hosts", type=int, default=10000)
    parser.add_argument("--vms", type=int, default=200000)
    parser.add_argument("--target-groups", type=int, default=10000)
    parser.add_argument("--target-migrations", type=int, default=2000)
    parser.add_argument("--target-images", type=int, default=1000)
    parser.add_argument("--changed-servers", type=int, default=500,
                        help="servers a steady cycle's changes-since read returns")
    args = parser.parse_args(argv)

    cloud = None
    if args.endpoints_file:
        endpoints = json.load(open(args.endpoints_file))
        cloud = client.FakeCloud(None, endpoints, None)
    else:
        started = time.perf_counter()
        cloud = client.start(tempfile.mkdtemp(prefix="bench-harvest-"), computes=args.computes,
                             nova_timers=(600, 120), timeout_s=3600)
        print("fake cloud of %d computes up in %.0f s" % (args.computes, time.perf_counter() - started))
    try:
        _workload(cloud, args.servers, args.groups, args.aggregates)
        recorder = _Recorder()
        openstack_http.proxy_of = recorder.proxy_of
        driver = openstack.from_endpoints(cloud.service_endpoints, page_size=PAGE_SIZE)
        driver.list_compute_services()  # version discovery outside the cycles
        first_rows, first_calls, every_call = None, None, []
        for name in ("first", "steady", "steady"):
            snap, calls, took_s = _cycle(driver, recorder)
            rows = _by_path(calls)
            first_rows, first_calls = first_rows or rows, first_calls or calls
            every_call += calls
            print("\n%s cycle: %d hypervisors, %d servers, %.2f s; sources ok: %s" % (
                name, len(snap.hypervisors), len(snap.vms), took_s,
                sorted(n for n, s in snap.sources.items() if s.ok)))
            print("%-10s %-44s %8s %10s %8s %9s %10s" % (
                "service", "path", "requests", "bytes", "objects", "B/object", "answer ms"))
            for (service, path), row in rows.items():
                print("%-10s %-44s %8d %10d %8d %9s %10.1f" % (
                    service, path, row["requests"], row["bytes"], row["objects"],
                    "%.0f" % (row["bytes"] / row["objects"]) if row["objects"] else "-",
                    row["elapsed_s"] * 1000 / row["requests"]))
        counts = {"hypervisor": len(snap.hypervisors), "server": len(snap.vms),
                  "server group": len(snap.server_groups), "migration": len(snap.migrations),
                  "image": len(snap.images)}
        assert max(counts.values()) < PAGE_SIZE, "the extrapolation assumes one page per measured list"
        parse = _parse_times(_replayed_driver(_full_page_of_servers(first_calls + every_call)),
                             dict(counts, server=PAGE_SIZE - 1), args.repeat)
        openstack_http.proxy_of = recorder.original
        print("\nparsed server: %.0f B of Python heap each" % _vm_memory(first_calls))
        target = {"hypervisor": args.hosts, "server": args.vms, "server group": args.target_groups,
                  "migration": args.target_migrations, "image": args.target_images}
        _extrapolate(rows, first_rows, parse, target, args.changed_servers)
    finally:
        if cloud is not None and cloud.process is not None:
            cloud.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
