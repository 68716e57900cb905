"""Hosts as rows on PostgreSQL: harvest's store writes them, the API pages them, concurrent writers keep the newest."""

import urllib.parse

import sqlalchemy as sa
import webob

from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.db import models
from keyvrm.harvest import assemble
from keyvrm.harvest.sources import sources_for_sim
from keyvrm.harvest import store
from keyvrm.model import settings
from keyvrm.model import snapshot as m
from keyvrm.simulator.drivers import simulated
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r
from tests.functional.db import race
from tests.unit.api import seed


def _region():
    return generator.generate({"hosts": 60, "hosts_per_aggregate": 20}, {"vms_per_host": 3}, r.RegionOptions(seed=3))


def _harvest(region):
    return assemble.harvest(sources_for_sim(simulated.for_region(region)), settings.AppConfig(), now_s=region.now)


def _later(snapshot, seconds, hypervisors):
    """``snapshot`` taken ``seconds`` later with only ``hypervisors`` (and every VM, aggregate and source)."""
    return m.RegionSnapshot(region=snapshot.region, taken_at=snapshot.taken_at + seconds,
                            aggregates=snapshot.aggregates, hypervisors=hypervisors, vms=snapshot.vms,
                            sources=snapshot.sources)


def _store(db, snapshot):
    return store.store_and_sync(db, snapshot, keep_count=5, keep_days=0, now_s=snapshot.taken_at)[0]


def _rows(db):
    with db.reader() as session:
        hosts = {row.name: row for row in session.execute(sa.select(models.Hypervisor)).scalars()}
        memberships = session.execute(sa.select(models.HypervisorAggregate.host,
                                                models.HypervisorAggregate.aggregate)).all()
    return hosts, sorted(memberships)


def _walk(app, path):
    """Every item of a paged listing, following its next links; and how many pages it took."""
    items, pages = [], 0
    while path:
        response = webob.Request.blank(path).get_response(app)
        assert response.status_int == 200, response.text
        body = response.json
        items += body["hypervisors"]
        pages += 1
        path = None
        for link in body["links"]:
            parts = urllib.parse.urlsplit(link["href"])
            path = "%s?%s" % (parts.path, parts.query)
    return items, pages


def test_harvest_writes_one_row_per_host_of_the_newest_snapshot_with_hosts(pg_db):
    region = _region()
    first = _harvest(region)
    first_id = _store(pg_db, first)
    faults.nova_api_503(region, {"duration_s": 60})
    outage = _harvest(region)
    assert outage.hypervisors == ()
    _store(pg_db, outage)

    hosts, memberships = _rows(pg_db)
    assert sorted(hosts) == sorted(h.name for h in first.hypervisors)
    assert {row.snapshot_id for row in hosts.values()} == {first_id}
    on_host = {name: sum(1 for vm in first.vms if vm.host == name) for name in hosts}
    assert {name: row.vm_count for name, row in hosts.items()} == on_host
    assert memberships == sorted((h.name, a) for h in first.hypervisors for a in h.aggregates)

    fewer = _later(first, 120, first.hypervisors[10:])
    fewer_id = _store(pg_db, fewer)
    hosts, memberships = _rows(pg_db)
    assert sorted(hosts) == sorted(h.name for h in fewer.hypervisors)
    assert {row.snapshot_id for row in hosts.values()} == {fewer_id}
    assert {host for host, _ in memberships} == set(hosts)
    aggregate = first.aggregates[0]
    listed = [h.host for h in hypervisors_db.list_aggregate_hosts(pg_db, aggregate.name).hosts]
    assert listed == [name for name in aggregate.hosts if name in hosts]


def test_the_api_pages_hosts_by_name_with_keyvrms_state(pg_db):
    region = _region()
    snapshot = _harvest(region)
    snapshot_id = _store(pg_db, snapshot)
    names = sorted(h.name for h in snapshot.hypervisors)
    db_api.set_hypervisor_state(pg_db, names[3], "maintenance", reason="disk")
    db_api.set_hypervisor_state(pg_db, "zz-retired", "maintenance", reason="gone from Nova")
    app = seed.make_app(pg_db)

    items, pages = _walk(app, "/v1/hypervisors?limit=25")
    assert [i["host"] for i in items] == names + ["zz-retired"] and pages == 3
    assert {i["snapshot_id"] for i in items} == {snapshot_id}
    assert items[3]["state"] == "maintenance" and items[-1]["seen_at"] is None

    aggregate = snapshot.aggregates[1].name
    members, _ = _walk(app, "/v1/hypervisors?limit=7&aggregate=%s" % aggregate)
    assert [i["host"] for i in members] == sorted(snapshot.aggregates[1].hosts)
    held, _ = _walk(app, "/v1/hypervisors?limit=1&state=maintenance")
    assert [i["host"] for i in held] == [names[3], "zz-retired"]


def test_concurrent_writers_leave_the_newest_snapshots_rows_whole(pg_db, pg_url):
    region = _region()
    older = _harvest(region)
    newer = _later(older, 60, older.hypervisors[5:])
    ids = [db_api.store_snapshot(pg_db, s, keep_count=5) for s in (older, newer)]
    for _ in range(5):
        written = race.race(pg_url, lambda db, i: hypervisors_db.replace_hypervisors(db, ids[i], (older, newer)[i]), 2)
        hosts, memberships = _rows(pg_db)
        assert written[1] == len(newer.hypervisors) and written[0] in (0, len(older.hypervisors))
        assert sorted(hosts) == sorted(h.name for h in newer.hypervisors)
        assert {row.snapshot_id for row in hosts.values()} == {ids[1]}
        assert {host for host, _ in memberships} == set(hosts)


def test_text_with_tabs_newlines_backslashes_and_quotes_round_trips_through_copy(pg_db):
    reason = 'fenced\tby "ipmi"\nat 10:00 \\ rack\r2, ünïcode \\N'
    aggregate = 'agg\t"quoted" \\ \\N ü'
    service = m.ComputeService("cmp\\1", state="down", status="disabled", forced_down=True, disabled_reason=reason)
    hyper = m.Hypervisor("cmp\\1", "az 1\t", (aggregate, "agg-2"), service=service,
                         metrics=m.HostMetrics(cpu_pct=1e-9, ram_pct=99.99999999999, net_pct=0.0))
    snapshot = m.RegionSnapshot(region="r", taken_at=1764583200.123456, hypervisors=(hyper,),
                                aggregates=(m.Aggregate(aggregate, 1, hosts=("cmp\\1",)),))
    snapshot_id = _store(pg_db, snapshot)
    shown = hypervisors_db.get_hypervisor(pg_db, "cmp\\1")
    assert (shown["availability_zone"], shown["aggregates"], shown["service"]["disabled_reason"]) == (
        "az 1\t", [aggregate, "agg-2"], reason)
    assert (shown["snapshot_id"], shown["seen_at"]) == (snapshot_id, models.as_stored_time(1764583200.123456))
    [load] = hypervisors_db.list_aggregate_hosts(pg_db, aggregate).hosts
    assert (load.host, load.cpu_pct, load.ram_pct, load.net_pct, load.hugepages_pct) == (
        "cmp\\1", 1e-9, 99.99999999999, 0.0, None)
