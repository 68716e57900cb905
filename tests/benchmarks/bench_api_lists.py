"""Benchmark: requests/s and p50/p99 latency of keyvrm-api's list endpoints under 8 and 64 client threads.

keyvrm-api runs as deployed: the ``keyvrm-api`` console script in its own process, from a
config file (``[api] auth_strategy = noauth``, ``threads``/``max_threads`` as given), over a
PostgreSQL database this script creates, migrates and fills through ``keyvrm.db.api``: one
region snapshot per ``--snapshots`` (``--hosts`` hosts of 20 VMs, aggregates of 50 hosts),
``--cycles`` cycles, ``--events`` events with ``--recommendations-per-event`` recommendations
and their operations, a state for 5% of the hosts; the database is dropped at the end.

Every GET list endpoint of the router is measured with ``?limit=--limit`` (0: the server's
``[api] max_limit``). Each client thread keeps one keep-alive connection (``http.client``)
and sends requests; a row counts the answers that end within ``--duration-s`` seconds, from
when every client has had its first answer (so a slow endpoint's queue is full). Prints the
setup, a table (requests/s, p50, p99, non-200 answers, response size, keyvrm-api's CPU) and
one JSON line. The clients share the machine (and the GIL of one process) with the server and
PostgreSQL, so on a small machine the figures are a floor. Never a timed test. From the
repository root, with the functional tox env (PostgreSQL at 127.0.0.1:5432, trust):

    .tox/functional/bin/python -m tests.benchmarks.bench_api_lists
    .tox/functional/bin/python -m tests.benchmarks.bench_api_lists --clients 8 64 --api-threads 64 --limit 0
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import pathlib
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from keyvrm.api import router
from keyvrm.db import api as db_api
from keyvrm.db import migration
from tests.benchmarks import bench_snapshot
from tests.benchmarks import throwaway_db

KEYVRM_API = os.path.join(os.path.dirname(sys.executable), "keyvrm-api")
LOAD = {"source": {"before": {"cpu": 91.0, "ram": 70.0, "net": 10.0, "syn_score": 88.0},
                   "after": {"cpu": 70.0, "ram": 60.0, "net": 8.0, "syn_score": 72.0}},
        "target": {"before": {"cpu": 30.0, "ram": 40.0, "net": 5.0, "syn_score": 33.0},
                   "after": {"cpu": 51.0, "ram": 50.0, "net": 7.0, "syn_score": 50.0}}}


def list_paths():
    """The router's GET list endpoints (no path parameter), in its order."""
    return [r.path for r in router.all_routes()
            if r.method == "GET" and "{" not in r.path and r.operation_id.startswith("list_") and not r.public]


def _seed_cycle(db, index):
    cycle_id = db_api.start_cycle(db)
    if index % 10 == 9:
        db_api.finish_cycle(db, cycle_id, "skipped", reason_code="disabled", reason="KeyVRM is disabled")
    else:
        db_api.finish_cycle(db, cycle_id, "completed")
    return cycle_id


def _seed_event(db, rng, index, aggregates, hosts, cycle_ids, per_event):
    kind = "HA" if index % 3 == 0 else "LB"
    event_id = db_api.create_event(db, rng.choice(aggregates), kind, kind, cycle_id=rng.choice(cycle_ids))
    for r in range(per_event):
        source, target = rng.sample(hosts, 2)
        rec_id = db_api.create_recommendation(
            db, event_id, "evacuate" if kind == "HA" else "live_migrate", "vm-%d-%d" % (index, r), source, target,
            auto_run=True, ha_round=1 if kind == "HA" else None, load_calculation=None if kind == "HA" else LOAD)
        db_api.set_recommendation_status(db, rec_id, "running")
        db_api.add_operation(db, rec_id, "start", 1)
        db_api.add_operation(db, rec_id, "success", 1, duration_s=rng.uniform(5, 90))
        db_api.set_recommendation_status(db, rec_id, "succeeded")
    db_api.set_event_status(db, event_id, "completed", state="healthy")


def seed(db, args):
    """Fill the database through keyvrm.db.api; returns a dict of row counts."""
    snapshot = bench_snapshot.build_snapshot(args.hosts, 20, args.seed)
    db_api.sync_aggregates(db, snapshot.aggregates)
    aggregates = [a.name for a in snapshot.aggregates]
    for name in aggregates:
        db_api.update_aggregate_config(db, name, {"marker": "HA+LB"}, "bench")
    for _ in range(args.snapshots):
        db_api.store_snapshot(db, snapshot, keep_count=args.snapshots)
    hosts = [h.name for h in snapshot.hypervisors]
    for host in hosts[::20]:
        db_api.set_hypervisor_state(db, host, "fenced", reason="fenced by ipmi", fencing=[
            {"fencer": "ipmi", "confirmed": True, "message": "power off", "started_at": 1.7e9,
             "finished_at": 1.7e9 + 3}])
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        cycle_ids = list(pool.map(lambda i: _seed_cycle(db, i), range(args.cycles)))
        rngs = [random.Random(args.seed * 1000003 + i) for i in range(args.events)]
        list(pool.map(lambda i: _seed_event(db, rngs[i], i, aggregates, hosts, cycle_ids,
                                            args.recommendations_per_event), range(args.events)))
    return {"aggregates": len(aggregates), "hosts": len(hosts), "vms": len(snapshot.vms),
            "host_states": len(hosts[::20]), "snapshots": args.snapshots, "cycles": args.cycles,
            "events": args.events, "recommendations": args.events * args.recommendations_per_event,
            "operations": 2 * args.events * args.recommendations_per_event}


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_api(workdir, db_url, args):
    """keyvrm-api in its own process from a config file; returns (process, port, log path)."""
    port = _free_port()
    config = workdir / "keyvrm.conf"
    config.write_text("[DEFAULT]\nstate_path = %s\n[api]\nhost = 127.0.0.1\nport = %d\nauth_strategy = noauth\n"
                      "threads = %d\nmax_threads = %d\n[database]\nconnection = %s\n"
                      % (workdir, port, args.api_threads, args.api_max_threads, db_url))
    log = workdir / "keyvrm-api.log"
    process = subprocess.Popen([KEYVRM_API, "--config-file", str(config)], stdout=subprocess.DEVNULL,
                               stderr=log.open("w"), env=dict(os.environ, PYTHONWARNINGS="ignore"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("keyvrm-api exited:\n" + log.read_text()[-3000:])
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthcheck")
            if conn.getresponse().status == 200:
                return process, port, log
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("keyvrm-api did not answer on port %d:\n%s" % (port, log.read_text()[-3000:]))


def _cpu_s(pid):
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    fields = pathlib.Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Window:
    """The measured window: it opens once every client has had one answer (or after ``max_warmup_s``)."""

    def __init__(self, clients, duration_s, max_warmup_s):
        self.clients, self.duration_s = clients, duration_s
        self.warmup_ends = time.monotonic() + max_warmup_s
        self.warm = threading.Semaphore(0)
        self.start_at = self.stop_at = None
        self.opened = threading.Event()

    def open_when_warm(self):
        for _ in range(self.clients):
            if not self.warm.acquire(timeout=max(0.0, self.warmup_ends - time.monotonic())):
                break
        self.start_at = time.monotonic()
        self.stop_at = self.start_at + self.duration_s
        self.opened.set()

    def is_over(self):
        return self.opened.is_set() and time.monotonic() >= self.stop_at


def _client(port, path, window, answers):
    """One keep-alive connection sending ``path`` until the window closes; appends (ended, seconds, bytes, ok)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    first = True
    while not window.is_over():
        began = time.monotonic()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            ok = response.status == 200
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            body, ok = b"", False
        ended = time.monotonic()
        answers.append((ended, ended - began, len(body), ok))
        if first:
            window.warm.release()
            first = False
    conn.close()


def measure(port, pid, path, clients, duration_s, max_warmup_s=60.0):
    """Figures of ``clients`` threads sending GET ``path``: the answers that ended within the window.

    The window (``duration_s``) opens when every client has had its first answer, so the
    queue in front of a slow endpoint is full before anything is counted.
    """
    answers = []
    window = _Window(clients, duration_s, max_warmup_s)
    threads = [threading.Thread(target=_client, args=(port, path, window, answers)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    window.open_when_warm()
    cpu_before = _cpu_s(pid)
    time.sleep(duration_s)
    cpu_pct = 100.0 * (_cpu_s(pid) - cpu_before) / duration_s
    for thread in threads:
        thread.join()
    counted = [a for a in answers if window.start_at <= a[0] <= window.stop_at]
    ordered = sorted(a[1] for a in counted)
    count = len(ordered)
    return {"path": path, "clients": clients, "requests": count, "rps": count / duration_s,
            "p50_ms": 1000 * ordered[count // 2] if count else None,
            "p99_ms": 1000 * ordered[min(count - 1, int(count * 0.99))] if count else None,
            "errors": sum(1 for a in counted if not a[3]),
            "kb_per_response": statistics.mean(a[2] for a in counted) / 1024 if counted else 0.0,
            "server_cpu_pct": cpu_pct}


def _ms(value):
    return "%8.1f" % value if value is not None else "%8s" % "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 64], help="client thread counts")
    parser.add_argument("--duration-s", type=float, default=5.0, help="measured seconds per endpoint and count")
    parser.add_argument("--limit", type=int, default=50, help="?limit= of each request; 0: none ([api] max_limit)")
    parser.add_argument("--api-threads", type=int, default=16, help="keyvrm-api [api] threads")
    parser.add_argument("--api-max-threads", type=int, default=64, help="keyvrm-api [api] max_threads")
    parser.add_argument("--hosts", type=int, default=500, help="hosts of the region snapshot (20 VMs each)")
    parser.add_argument("--snapshots", type=int, default=10)
    parser.add_argument("--cycles", type=int, default=5000)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--recommendations-per-event", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pg-server", default=throwaway_db.PG_SERVER,
                        help="a PostgreSQL URL allowed to create databases")
    args = parser.parse_args()

    name, db_url = throwaway_db.create(args.pg_server)
    process = None
    try:
        db = db_api.Database(db_url)
        migration.upgrade(db.engine)
        seeded_at = time.monotonic()
        counts = seed(db, args)
        seed_s = time.monotonic() - seeded_at
        db.dispose()
        with tempfile.TemporaryDirectory(prefix="keyvrm-bench-api-") as workdir:
            process, port, _ = start_api(pathlib.Path(workdir), db_url, args)
            print("keyvrm-api (pid %d): [api] threads = %d, max_threads = %d, auth_strategy = noauth; "
                  "PostgreSQL database %s" % (process.pid, args.api_threads, args.api_max_threads, name))
            print("rows (seeded in %.0f s): %s" % (seed_s, ", ".join("%d %s" % (v, k) for k, v in counts.items())))
            print("each request: GET <path>%s, keep-alive; per row, the answers that end within %.0f s, "
                  "counted once every client has had one answer"
                  % ("?limit=%d" % args.limit if args.limit else " (page = [api] max_limit)", args.duration_s))
            print("%-28s %7s %8s %8s %8s %7s %8s %7s" % (
                "endpoint", "clients", "req/s", "p50 ms", "p99 ms", "non-200", "KB/resp", "API CPU%"))
            rows = []
            for path in list_paths():
                url = "%s?limit=%d" % (path, args.limit) if args.limit else path
                for clients in args.clients:
                    row = measure(port, process.pid, url, clients, args.duration_s)
                    rows.append(row)
                    print("%-28s %7d %8.1f %s %s %7d %8.1f %7.0f" % (
                        path, clients, row["rps"], _ms(row["p50_ms"]), _ms(row["p99_ms"]), row["errors"],
                        row["kb_per_response"], row["server_cpu_pct"]), flush=True)
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            process = None
        print(json.dumps({"benchmark": "api_lists", "api_threads": args.api_threads,
                          "api_max_threads": args.api_max_threads, "limit": args.limit,
                          "duration_s": args.duration_s, "rows_seeded": counts, "results": rows}))
    finally:
        if process is not None:
            process.kill()
            process.wait()
        throwaway_db.drop(name, args.pg_server)


if __name__ == "__main__":
    main()
