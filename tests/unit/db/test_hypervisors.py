"""Hosts as rows (keyvrm.db.hypervisors) on SQLite: what harvest writes, and the pages, filters and loads read back."""

import datetime

import pytest
import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import snapshot as m

T0 = 1764583200.0


def _snapshot(hosts, taken_at=T0, aggregates=None, vms=()):
    """A snapshot of ``hosts``; its aggregates list their hosts in the order given (default: host order)."""
    if aggregates is None:
        aggregates = {}
        for host in hosts:
            for name in host.aggregates:
                aggregates.setdefault(name, []).append(host.name)
    return m.RegionSnapshot(
        region="RegionOne", taken_at=taken_at, hypervisors=tuple(hosts), vms=tuple(vms),
        aggregates=tuple(m.Aggregate(name, i, None, "az1", {}, tuple(members))
                         for i, (name, members) in enumerate(aggregates.items())),
        sources={m.SOURCE_NOVA: m.SourceStatus(m.SOURCE_NOVA, bool(hosts))})


def _host(name, *aggregates, **fields):
    return m.Hypervisor(name, "az1", aggregates or ("agg-a",), **fields)


def _store(db, snapshot, keep_count=10):
    """Store ``snapshot`` as harvest does: its row, then its hosts' rows."""
    snapshot_id = db_api.store_snapshot(db, snapshot, keep_count=keep_count)
    hypervisors_db.replace_hypervisors(db, snapshot_id, snapshot)
    return snapshot_id


def _names(db, **filters):
    return [h["host"] for h in hypervisors_db.page_hypervisors(db, 100, **filters)]


def _rows(db):
    with db.reader() as session:
        return {row.name: row for row in session.execute(sa.select(models.Hypervisor)).scalars()}


def test_each_host_row_holds_what_the_snapshot_saw(sqlite_db):
    service = m.ComputeService("cmp-1", state="down", status="disabled", forced_down=True,
                               disabled_reason="keyvrm: fenced", updated_at=T0 - 30)
    hot = _host("cmp-1", "agg-a", "agg-b", service=service, hugepages=(m.HugePages(2048, 1024, 10),),
                metrics=m.HostMetrics(cpu_pct=97.5, ram_pct=40.0, hugepages_pct=12.5), heartbeat_at=T0 - 2)
    bare = _host("cmp-2", hugepages=None)
    flavor = m.Flavor("small", 1, 512)
    vms = [m.VM("vm-%d" % i, "vm", "cmp-1", "p", flavor) for i in range(3)]
    snapshot_id = _store(sqlite_db, _snapshot([hot, bare], vms=vms))

    rows = _rows(sqlite_db)
    row = rows["cmp-1"]
    assert (row.snapshot_id, row.taken_at, row.availability_zone, row.aggregates) == (
        snapshot_id, models.as_stored_time(T0), "az1", ["agg-a", "agg-b"])
    assert (row.service_state, row.service_status, row.service_forced_down, row.service_disabled_reason,
            row.service_updated_at) == ("down", "disabled", True, "keyvrm: fenced", models.as_stored_time(T0 - 30))
    assert (row.cpu_pct, row.ram_pct, row.net_pct, row.hugepages_pct) == (97.5, 40.0, None, 12.5)
    assert (row.has_hugepages, row.vm_count, row.heartbeat_at) == (True, 3, models.as_stored_time(T0 - 2))
    bare_row = rows["cmp-2"]
    assert (bare_row.service_state, bare_row.cpu_pct, bare_row.has_hugepages, bare_row.vm_count,
            bare_row.heartbeat_at) == (None, None, False, 0, None)

    shown = hypervisors_db.get_hypervisor(sqlite_db, "cmp-1")
    assert shown["service"] == {"state": "down", "status": "disabled", "forced_down": True,
                                "disabled_reason": "keyvrm: fenced"}
    assert (shown["snapshot_id"], shown["seen_at"], shown["aggregates"]) == (
        snapshot_id, models.as_stored_time(T0), ["agg-a", "agg-b"])
    assert hypervisors_db.get_hypervisor(sqlite_db, "cmp-2")["service"] is None


def test_a_newer_snapshot_replaces_every_row_and_membership(sqlite_db):
    _store(sqlite_db, _snapshot([_host("h1", "agg-a"), _host("h2", "agg-a")]))
    newer = _store(sqlite_db, _snapshot([_host("h2", "agg-b"), _host("h3", "agg-a")], taken_at=T0 + 60))
    assert _names(sqlite_db) == ["h2", "h3"]
    assert {row.snapshot_id for row in _rows(sqlite_db).values()} == {newer}
    assert _names(sqlite_db, aggregate="agg-a") == ["h3"]
    assert _names(sqlite_db, aggregate="agg-b") == ["h2"]


def test_a_snapshot_without_hosts_leaves_the_rows_of_the_newest_one_with_hosts(sqlite_db):
    with_hosts = _store(sqlite_db, _snapshot([_host("h1"), _host("h2")]))
    outage = _snapshot([], taken_at=T0 + 60)
    outage_id = db_api.store_snapshot(sqlite_db, outage, keep_count=10)
    assert hypervisors_db.replace_hypervisors(sqlite_db, outage_id, outage) == 0
    assert [(h["host"], h["snapshot_id"]) for h in hypervisors_db.page_hypervisors(sqlite_db, 10)] == [
        ("h1", with_hosts), ("h2", with_hosts)]


def test_a_host_seen_in_no_zone_keeps_the_zone_its_previous_row_had(sqlite_db):
    # Nova's zone list leaves out a host whose service is disabled, as fencing leaves it (issue 32 item 8)
    _store(sqlite_db, _snapshot([_host("cmp-1"), _host("cmp-2")]))
    fenced = m.Hypervisor("cmp-1", None, ("agg-a",))
    newcomer = m.Hypervisor("cmp-3", None, ("agg-a",))
    _store(sqlite_db, _snapshot([fenced, _host("cmp-2"), newcomer], taken_at=T0 + 60))
    zones = {name: row.availability_zone for name, row in _rows(sqlite_db).items()}
    assert zones == {"cmp-1": "az1", "cmp-2": "az1", "cmp-3": None}
    assert hypervisors_db.get_hypervisor(sqlite_db, "cmp-1")["availability_zone"] == "az1"


def test_an_older_snapshot_never_replaces_the_rows_of_a_newer_one(sqlite_db):
    older = _snapshot([_host("h1")])
    older_id = db_api.store_snapshot(sqlite_db, older, keep_count=10)
    newer_id = _store(sqlite_db, _snapshot([_host("h2")], taken_at=T0 + 60))
    assert hypervisors_db.replace_hypervisors(sqlite_db, older_id, older) == 0
    assert [(h["host"], h["snapshot_id"]) for h in hypervisors_db.page_hypervisors(sqlite_db, 10)] == [
        ("h2", newer_id)]


def test_writing_the_same_snapshot_again_leaves_the_same_rows(sqlite_db):
    snapshot = _snapshot([_host("h1"), _host("h2")])
    snapshot_id = _store(sqlite_db, snapshot)
    assert hypervisors_db.replace_hypervisors(sqlite_db, snapshot_id, snapshot) == 2  # a task run again
    assert _names(sqlite_db) == ["h1", "h2"] and _names(sqlite_db, aggregate="agg-a") == ["h1", "h2"]


def test_the_rows_go_with_their_snapshot_when_retention_deletes_it(sqlite_db):
    _store(sqlite_db, _snapshot([_host("h1")]), keep_count=2)
    for i in (1, 2):
        _store(sqlite_db, _snapshot([], taken_at=T0 + 60 * i), keep_count=2)
    assert hypervisors_db.page_hypervisors(sqlite_db, 10) == []
    assert hypervisors_db.list_aggregate_hosts(sqlite_db, "agg-a").hosts == ()
    with pytest.raises(exception.NotFound):
        hypervisors_db.get_hypervisor(sqlite_db, "h1")


def test_a_host_listed_twice_is_written_once_as_its_last_entry(sqlite_db):
    _store(sqlite_db, _snapshot([_host("h1", heartbeat_at=T0 - 9), _host("h1", heartbeat_at=T0 - 1)]))
    assert _rows(sqlite_db)["h1"].heartbeat_at == models.as_stored_time(T0 - 1)


# A region of six hosts Nova lists and three only KeyVRM holds (Nova no longer lists them).
SEEN = [_host("h02", "agg-a"), _host("h04", "agg-a", "agg-b"), _host("h06", "agg-b"), _host("h07", "agg-a"),
        _host("h08", "agg-b"), _host("h10", "agg-a")]
STATES = {"h02": "fenced", "h06": "ok", "h07": "maintenance", "h01": "error", "h05": "restoring", "h09": "fenced"}
FENCING = [{"fencer": "ipmi", "confirmed": True, "message": "off", "started_at": T0, "finished_at": T0 + 3}]


def _held_region(db):
    snapshot_id = _store(db, _snapshot(SEEN))
    for host, state in STATES.items():
        if state == "restoring":  # only a host KeyVRM holds is returned to service
            db_api.set_hypervisor_state(db, host, "maintenance")
        db_api.set_hypervisor_state(db, host, state, fencing=FENCING if state == "fenced" else None)
    return snapshot_id


def _expected(state=None, aggregate=None):
    """The hosts a filter keeps, by name, as listing every host and filtering in Python would."""
    aggregates = {h.name: h.aggregates for h in SEEN}
    hosts = sorted(set(aggregates) | set(STATES))
    return [h for h in hosts if (state is None or STATES.get(h, "ok") == state)
            and (aggregate is None or aggregate in aggregates.get(h, ()))]


@pytest.mark.parametrize("filters", [{}, {"state": "ok"}, {"state": "fenced"}, {"state": "error"},
                                     {"aggregate": "agg-a"}, {"aggregate": "agg-b", "state": "ok"},
                                     {"aggregate": "agg-none"}])
@pytest.mark.parametrize("limit", [1, 2, 4, 50])
def test_pages_walk_every_matching_host_by_name_once(sqlite_db, filters, limit):
    _held_region(sqlite_db)
    expected = _expected(**filters)
    walked, marker = [], None
    for _ in range(len(expected) // limit + 1):  # the pages a walk needs, the last one short
        page = [h["host"] for h in hypervisors_db.page_hypervisors(sqlite_db, limit, marker=marker, **filters)]
        walked += page
        if len(page) < limit:
            break
        marker = page[-1]
    assert walked == expected


@pytest.mark.parametrize("filters", [{}, {"state": "ok"}, {"state": "fenced"}, {"aggregate": "agg-a"}])
@pytest.mark.parametrize("limit", [1, 3, 50])
def test_pages_walked_from_the_last_name_down_are_the_same_hosts_in_reverse(sqlite_db, filters, limit):
    _held_region(sqlite_db)
    walked, marker = [], None
    while True:
        page = [h["host"] for h in hypervisors_db.page_hypervisors(sqlite_db, limit, marker=marker, descending=True,
                                                                   **filters)]
        walked += page
        if len(page) < limit:
            break
        marker = page[-1]
    assert walked == list(reversed(_expected(**filters)))


def test_the_page_before_a_marker_is_the_nearest_hosts_first(sqlite_db):
    _held_region(sqlite_db)
    page = hypervisors_db.page_hypervisors(sqlite_db, 2, marker="h06", descending=True)
    assert [h["host"] for h in page] == ["h05", "h04"]


def test_an_az_keeps_the_hosts_nova_lists_in_it_and_none_only_keyvrm_holds(sqlite_db):
    _store(sqlite_db, _snapshot(SEEN + [m.Hypervisor("h11", "az2", ("agg-c",))]))
    db_api.set_hypervisor_state(sqlite_db, "h01", "error")
    assert _names(sqlite_db, availability_zone="az2") == ["h11"]
    assert _names(sqlite_db, availability_zone="az1") == [h.name for h in SEEN]
    assert _names(sqlite_db, availability_zone="az1", aggregate="agg-b", state="ok") == ["h04", "h06", "h08"]


def test_a_marker_need_not_be_a_listed_host(sqlite_db):
    _held_region(sqlite_db)
    assert _names(sqlite_db, marker="h045") == ["h05", "h06", "h07", "h08", "h09", "h10"]
    assert _names(sqlite_db, marker="zz") == []


def test_a_host_only_keyvrm_holds_shows_the_current_snapshot_and_nothing_nova_saw(sqlite_db):
    snapshot_id = _held_region(sqlite_db)
    listed = {h["host"]: h for h in hypervisors_db.page_hypervisors(sqlite_db, 50)}
    held = listed["h09"]
    assert held == hypervisors_db.get_hypervisor(sqlite_db, "h09")
    assert (held["state"], held["restorable"], held["fencing"][0]["fencer"]) == ("fenced", True, "ipmi")
    assert (held["snapshot_id"], held["seen_at"], held["availability_zone"], held["aggregates"],
            held["service"]) == (snapshot_id, None, None, [], None)
    seen = listed["h04"]
    assert (seen["state"], seen["state_since"], seen["reason"], seen["fencing"], seen["restorable"]) == (
        "ok", None, None, [], False)
    assert (seen["snapshot_id"], seen["seen_at"]) == (snapshot_id, models.as_stored_time(T0))


def test_a_host_neither_nova_nor_keyvrm_knows_is_not_found(sqlite_db):
    _held_region(sqlite_db)
    with pytest.raises(exception.NotFound):
        hypervisors_db.get_hypervisor(sqlite_db, "h03")


def test_an_unknown_state_filter_is_refused_naming_state(sqlite_db):
    with pytest.raises(exception.InvalidField) as caught:
        hypervisors_db.page_hypervisors(sqlite_db, 10, state="dead")
    assert caught.value.field == "state"


def test_an_aggregates_hosts_come_in_its_own_order_then_those_it_does_not_list_by_name(sqlite_db):
    metrics = m.HostMetrics(cpu_pct=50.0, net_pct=5.0)
    hosts = [_host(name, metrics=metrics) for name in ("h1", "h2", "h3", "h4")]
    snapshot_id = _store(sqlite_db, _snapshot(hosts, aggregates={"agg-a": ["h3", "h1", "gone"]}))
    found = hypervisors_db.list_aggregate_hosts(sqlite_db, "agg-a")
    assert (found.snapshot_id, found.taken_at) == (snapshot_id, models.as_stored_time(T0))
    assert [h.host for h in found.hosts] == ["h3", "h1", "h2", "h4"]
    assert found.hosts[0] == hypervisors_db.HostLoad("h3", 50.0, None, 5.0, None, False, 0)


def test_before_the_first_snapshot_there_are_no_hosts(sqlite_db):
    assert hypervisors_db.list_aggregate_hosts(sqlite_db, "agg-a") == hypervisors_db.AggregateHosts(None, None, ())
    assert hypervisors_db.page_hypervisors(sqlite_db, 10) == []


def test_restoring_needs_a_host_nova_lists_or_keyvrm_holds(sqlite_db):
    _held_region(sqlite_db)
    with pytest.raises(exception.NotFound):
        db_api.request_hypervisor_restore(sqlite_db, "h03", "admin")
    with pytest.raises(exception.Conflict):
        db_api.request_hypervisor_restore(sqlite_db, "h04", "admin")  # listed, KeyVRM holds no state
    restored = db_api.request_hypervisor_restore(sqlite_db, "h09", "admin")  # held only
    assert (restored["state"], restored["seen_at"]) == ("restoring", None)
    assert isinstance(restored["state_since"], datetime.datetime)
