"""Benchmark: what the Horizon event page asks of the API for an event of N recommendations, before and after 1.9.

An event of ``--recommendations`` manual recommendations whose journals have 0 to 6 lines
(tests/unit/db/latest_operations.py) is written to a fresh SQLite database (or to a
throwaway PostgreSQL one with ``--postgresql``). The API's WSGI application answers
in-process (no network, no Keystone), so the figures are the API's and the database's
own work. Two ways of reading where every recommendation stands:

* ``1.8 journals``: the event page before issue 31: the list at 1.8, then every
  recommendation's ``/operations`` (one call each);
* ``1.9 page``: one page of the list at 1.9 with ``latest_operation`` (``--page-size``
  + 1 items, as the dashboard asks, and the whole event as one page).

Printed per way: HTTP calls, SQL queries (transaction control left out), median and max
wall time of ``--runs`` runs; then one JSON line. From the repository root:

    .tox/py3/bin/python -m tests.benchmarks.bench_event_page_api --recommendations 58
    .tox/functional/bin/python -m tests.benchmarks.bench_event_page_api --recommendations 58 --postgresql
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import webob

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from keyvrm.db import api as db_api  # noqa: E402
from keyvrm.db import migration  # noqa: E402
from tests.benchmarks import throwaway_db  # noqa: E402
from tests.unit.api import seed  # noqa: E402
from tests.unit.db import latest_operations  # noqa: E402

HEADER = "OpenStack-API-Version"


def _get(app, path, version):
    response = webob.Request.blank(path, headers={HEADER: "vm-resource-manager " + version,
                                                  "Accept": "application/json"}).get_response(app)
    assert response.status_int == 200, (path, response.status, response.text[:300])
    return response.json


def journals_18(app, event_id):
    """The event page before: the list (every page), then one call per recommendation for its journal."""
    calls = 1
    recommendations = _get(app, "/v1/recommendations?event_id=%s" % event_id, "1.8")["recommendations"]
    for rec in recommendations:
        _get(app, "/v1/recommendations/%s/operations" % rec["id"], "1.8")
        calls += 1
    return calls


def page_19(limit):
    def read(app, event_id):
        body = _get(app, "/v1/recommendations?event_id=%s&limit=%d" % (event_id, limit), "1.9")
        assert all("latest_operation" in r for r in body["recommendations"])
        return 1
    return read


def measure(app, db, event_id, way, runs):
    """(HTTP calls, SQL queries, [seconds per run]) of reading the event's recommendations ``way``."""
    times = []
    for _ in range(runs):
        with latest_operations.counted_queries(db) as queries:
            start = time.perf_counter()
            calls = way(app, event_id)
            times.append(time.perf_counter() - start)
    return calls, len(queries), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recommendations", type=int, default=58)
    parser.add_argument("--page-size", type=int, default=20, help="Horizon's Items Per Page (20 by default)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--postgresql", action="store_true", help="a throwaway PostgreSQL database, not SQLite")
    args = parser.parse_args()

    if args.postgresql:
        pg_name, url = throwaway_db.create()
    else:
        directory = tempfile.mkdtemp(prefix="keyvrm-bench-")
        url = "sqlite:///%s/keyvrm.sqlite" % directory
    db = db_api.Database(url)
    migration.upgrade(db.engine)
    event_id, lines = latest_operations.seed_event(db, args.recommendations, other_count=0)
    app = seed.make_app(db)
    ways = [("1.8 journals", journals_18),
            ("1.9 page of %d" % args.page_size, page_19(args.page_size + 1)),
            ("1.9 whole event", page_19(args.recommendations + 1))]
    print("event of %d recommendations, %d journal lines; %s; %d runs"
          % (args.recommendations, sum(lines.values()), "PostgreSQL" if args.postgresql else "SQLite", args.runs))
    print("%-18s %10s %12s %10s %10s" % ("way", "HTTP calls", "SQL queries", "p50 ms", "max ms"))
    figures = {}
    for name, way in ways:
        calls, queries, times = measure(app, db, event_id, way, args.runs)
        figures[name] = {"calls": calls, "queries": queries, "p50_ms": round(statistics.median(times) * 1000, 2),
                         "max_ms": round(max(times) * 1000, 2)}
        print("%-18s %10d %12d %10.2f %10.2f" % (name, calls, queries, figures[name]["p50_ms"],
                                                 figures[name]["max_ms"]))
    db.dispose()
    if args.postgresql:
        throwaway_db.drop(pg_name)
    print(json.dumps({"recommendations": args.recommendations, "journal_lines": sum(lines.values()),
                      "database": "postgresql" if args.postgresql else "sqlite", "ways": figures}))


if __name__ == "__main__":
    main()
