"""Benchmark: the host list and an aggregate's load from keyvrm-api at region scale, before and after in one run.

Per region size (``--sizes`` hosts of ``--vms-per-host`` VMs, aggregates of 50 hosts, a
KeyVRM state for every 20th host and for 5 hosts the snapshot lacks), a PostgreSQL
database is created, migrated and filled the way the engine fills it: ``--snapshots``
harvested snapshots stored through ``keyvrm.harvest.store.store_and_sync`` (its time per
snapshot is printed, and the host rows' write alone where the tree has them). Then, per
endpoint, ``keyvrm-api`` is started afresh in its own process (as ``bench_api_lists``
starts it) so its first answer is a first answer, and one keep-alive client sends
``--requests`` more:

- GET /v1/hypervisors?limit=50 (first page), with a marker in the middle, of one aggregate
- GET /v1/hypervisors/{host}
- GET /v1/aggregates/{name}/load

then harvest stores the next snapshot and the client asks once more. Printed per size and
endpoint: the latency of the process's first answer, p50/p99 of the steady ones, of the
first answer on the new snapshot ("new-snap": where a process that decodes snapshots
decodes again), response size, keyvrm-api's RSS when it answered its health check, after
its first answer and at its peak (VmHWM, with the new snapshot); then, with two sizes or
more, the largest size against the smallest; and one JSON line. ``--baseline REV``
measures git revision REV too (a temporary ``git worktree``), first, with this script:
each size of each tree runs in a subprocess with that tree first on ``PYTHONPATH``
(keyvrm-api inherits it). Never a timed test. Needs the functional tox env and PostgreSQL
at ``KEYVRM_TEST_PG_SERVER`` (default 127.0.0.1:5432, trust). From the repository root:

    .tox/functional/bin/python tests/benchmarks/bench_api_hosts.py --sizes 500 10000
    .tox/functional/bin/python tests/benchmarks/bench_api_hosts.py --sizes 500 10000 --baseline b875bee
"""

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
HOSTS_PER_AGGREGATE = 50  # bench_snapshot.build_snapshot's
ENDPOINTS = ("hypervisors", "hypervisors_marker", "hypervisors_aggregate", "hypervisor", "aggregate_load")


def _paths(hosts):
    middle_host = "cmp-%05d" % (hosts // 2)
    aggregate = "agg-%03d" % ((hosts // 2) // HOSTS_PER_AGGREGATE)
    return {"hypervisors": "/v1/hypervisors?limit=50",
            "hypervisors_marker": "/v1/hypervisors?limit=50&marker=%s" % middle_host,
            "hypervisors_aggregate": "/v1/hypervisors?limit=50&aggregate=%s" % aggregate,
            "hypervisor": "/v1/hypervisors/%s" % middle_host,
            "aggregate_load": "/v1/aggregates/%s/load" % aggregate}


# --- the worker: one size, one tree, in its own process ------------------------------------------

def _status_mb(pid, field):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def _rows_write_s(db, snapshot_id, snapshot, repeat=3):
    """Seconds each of ``repeat`` rewrites of the snapshot's host rows takes; [] before the host rows existed."""
    try:
        from keyvrm.db import hypervisors as hypervisors_db
    except ImportError:  # a revision that reads hosts from the snapshot itself
        return []
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        hypervisors_db.replace_hypervisors(db, snapshot_id, snapshot)
        times.append(time.perf_counter() - began)
    return times


class _Harvest:
    """Stores the region's snapshot as harvest does, as a new snapshot (a new id) each time."""

    def __init__(self, db, snapshot, keep_count):
        self.db, self.snapshot, self.keep_count = db, snapshot, keep_count

    def store(self):
        """(snapshot id, the stored snapshot, seconds store_and_sync took)."""
        from keyvrm.harvest import store

        began = time.perf_counter()
        snapshot_id, _ = store.store_and_sync(self.db, self.snapshot, keep_count=self.keep_count, keep_days=0,
                                              now_s=time.time())
        return snapshot_id, self.snapshot, time.perf_counter() - began


def _seed(db, harvest, args):
    """Snapshots through harvest's store, host states; returns the store's and the host rows' seconds."""
    from keyvrm.db import api as db_api

    store_s = []
    for _ in range(args.snapshots):
        snapshot_id, snapshot, seconds = harvest.store()
        store_s.append(seconds)
    rows_s = _rows_write_s(db, snapshot_id, snapshot)
    fencing = [{"fencer": "ipmi", "confirmed": True, "message": "power off", "started_at": 1.7e9,
                "finished_at": 1.7e9 + 3}]
    for h in range(0, args.hosts, 20):
        db_api.set_hypervisor_state(db, "cmp-%05d" % h, "fenced", reason="fenced by ipmi", fencing=fencing)
    for h in range(args.hosts, args.hosts + 5):  # hosts KeyVRM holds that Nova no longer lists
        db_api.set_hypervisor_state(db, "cmp-%05d" % h, "maintenance", reason="retired")
    return store_s, rows_s


def _get(conn, path):
    began = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit("GET %s: %d %s" % (path, response.status, body[:500]))
    return time.perf_counter() - began, len(body)


def _measure_endpoint(workdir, db_url, path, harvest, args):
    """Figures of one endpoint on a fresh keyvrm-api process, then on the next snapshot harvest stores."""
    from tests.benchmarks import bench_api_lists

    api_args = argparse.Namespace(api_threads=args.api_threads, api_max_threads=args.api_max_threads)
    process, port, _ = bench_api_lists.start_api(workdir, db_url, api_args)
    try:
        rss_start = _status_mb(process.pid, "VmRSS")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        first_s, size = _get(conn, path)
        rss_first = _status_mb(process.pid, "VmRSS")
        steady = sorted(_get(conn, path)[0] for _ in range(args.requests))
        conn.close()  # storing a large snapshot outlasts the server's keep-alive
        harvest.store()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        new_snapshot_s, _ = _get(conn, path)
        conn.close()
        return {"path": path, "first_ms": 1000 * first_s, "new_snapshot_ms": 1000 * new_snapshot_s,
                "p50_ms": 1000 * steady[len(steady) // 2],
                "p99_ms": 1000 * steady[min(len(steady) - 1, int(len(steady) * 0.99))], "kb": size / 1024.0,
                "rss_start_mb": rss_start, "rss_first_mb": rss_first,
                "rss_peak_mb": _status_mb(process.pid, "VmHWM")}
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_worker(args):
    """Seed one size in a throwaway database and measure every endpoint; prints one JSON line."""
    import pathlib

    from keyvrm.db import api as db_api
    from keyvrm.db import migration
    from tests.benchmarks import throwaway_db

    name, db_url = throwaway_db.create(args.pg_server)
    try:
        from tests.benchmarks import bench_snapshot

        db = db_api.Database(db_url)
        migration.upgrade(db.engine)
        harvest = _Harvest(db, bench_snapshot.build_snapshot(args.hosts, args.vms_per_host, args.seed),
                           args.snapshots)
        store_s, rows_s = _seed(db, harvest, args)
        endpoints = {}
        with tempfile.TemporaryDirectory(prefix="keyvrm-bench-hosts-") as workdir:
            for key, path in _paths(args.hosts).items():
                endpoints[key] = _measure_endpoint(pathlib.Path(workdir), db_url, path, harvest, args)
        db.dispose()
        print(json.dumps({"hosts": args.hosts, "vms": args.hosts * args.vms_per_host, "store_s": store_s,
                          "rows_write_s": rows_s, "endpoints": endpoints}))
    finally:
        throwaway_db.drop(name, args.pg_server)


# --- the driver: every tree and size, then the tables ---------------------------------------------

def _measure(tree, hosts, args):
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--hosts", str(hosts)]
    for option in ("vms_per_host", "snapshots", "requests", "api_threads", "api_max_threads", "seed", "pg_server"):
        command += ["--" + option.replace("_", "-"), str(getattr(args, option))]
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + REPO, PYTHONWARNINGS="ignore")
    done = subprocess.run(command, env=env, cwd=tree, stdout=subprocess.PIPE, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"hosts": hosts, "error": "worker exited %d" % done.returncode}
    return json.loads(lines[-1])


def _print_tree(label, results):
    print("\n%s" % label)
    print("%-7s %-22s %9s %8s %8s %9s %8s %8s %8s %8s" % (
        "hosts", "endpoint", "first ms", "p50 ms", "p99 ms", "new-snap", "KB", "RSS0 MB", "RSS1 MB", "peak MB"))
    for result in results:
        if "error" in result:
            print("%-7d %s" % (result["hosts"], result["error"]))
            continue
        for key in ENDPOINTS:
            e = result["endpoints"][key]
            print("%-7d %-22s %9.1f %8.1f %8.1f %9.1f %8.1f %8.0f %8.0f %8.0f" % (
                result["hosts"], key, e["first_ms"], e["p50_ms"], e["p99_ms"], e["new_snapshot_ms"], e["kb"],
                e["rss_start_mb"], e["rss_first_mb"], e["rss_peak_mb"]))
        steady = result["store_s"][1:] or result["store_s"]
        print("%-7d harvest store_and_sync per snapshot: %.2f s (median of %d after the first, %.2f s)" % (
            result["hosts"], statistics.median(steady), len(steady), result["store_s"][0]))
        if result["rows_write_s"]:
            print("%-7d of which the host rows (replace_hypervisors): %.2f s (median of %d)" % (
                result["hosts"], statistics.median(result["rows_write_s"]), len(result["rows_write_s"])))


def _print_scaling(label, results):
    done = [r for r in results if "error" not in r]
    if len(done) < 2:
        return
    small, large = done[0], done[-1]
    print("\n%s: %d hosts against %d (ratio large/small)" % (label, large["hosts"], small["hosts"]))
    print("%-22s %9s %8s %9s %8s %9s" % ("endpoint", "first", "p50", "new-snap", "KB", "peak RSS"))
    for key in ENDPOINTS:
        a, b = small["endpoints"][key], large["endpoints"][key]
        print("%-22s %9.2f %8.2f %9.2f %8.2f %9.2f" % (
            key, b["first_ms"] / a["first_ms"], b["p50_ms"] / a["p50_ms"], b["new_snapshot_ms"] / a["new_snapshot_ms"],
            b["kb"] / a["kb"], b["rss_peak_mb"] / a["rss_peak_mb"]))


def _worktree(revision):
    path = tempfile.mkdtemp(prefix="keyvrm-baseline-")
    subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", path, revision], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 10000], help="hosts")
    parser.add_argument("--vms-per-host", type=int, default=20)
    parser.add_argument("--snapshots", type=int, default=3, help="snapshots stored (and kept)")
    parser.add_argument("--requests", type=int, default=200, help="steady requests per endpoint")
    parser.add_argument("--api-threads", type=int, default=16, help="keyvrm-api [api] threads")
    parser.add_argument("--api-max-threads", type=int, default=64, help="keyvrm-api [api] max_threads")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pg-server", default=os.environ.get(
        "KEYVRM_TEST_PG_SERVER", "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL URL allowed to create databases")
    parser.add_argument("--baseline", help="a git revision measured too, first (e.g. b875bee)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--hosts", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args)
        return
    trees, worktree = [], None
    if args.baseline:
        worktree = _worktree(args.baseline)
        trees.append(("baseline %s" % args.baseline, worktree))
    trees.append(("this tree", REPO))
    results = {}
    try:
        for label, tree in trees:
            results[label] = []
            for hosts in args.sizes:
                print("%s: %d hosts ..." % (label, hosts), file=sys.stderr, flush=True)
                results[label].append(_measure(tree, hosts, args))
    finally:
        if worktree:
            subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", worktree], check=False)
    for label, _ in trees:
        _print_tree(label, results[label])
        _print_scaling(label, results[label])
    print(json.dumps({"vms_per_host": args.vms_per_host, "snapshots": args.snapshots, "requests": args.requests,
                      "results": results}))


if __name__ == "__main__":
    main()
