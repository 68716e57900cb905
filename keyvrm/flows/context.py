"""What a flow task reads for its run: the stored snapshot, the busy set, the business config."""

from __future__ import annotations

import collections
import threading

from keyvrm.db import api as db_api
from keyvrm.db import models
from keyvrm.model import snapshot as m

_CACHE_SIZE = 4
_cache = collections.OrderedDict()
_cache_lock = threading.Lock()


def load_snapshot(db, snapshot_id: int) -> m.RegionSnapshot:
    """The stored snapshot ``snapshot_id`` (the last few are kept decoded: flows of one cycle share it)."""
    key = (db.url, snapshot_id)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    snapshot = db_api.load_snapshot(db, snapshot_id)
    with _cache_lock:
        _cache[key] = snapshot
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return snapshot


def busy_now(db, busy_hosts, busy_vms, own_event_id: str) -> m.BusySet:
    """The cycle's busy set plus what other unfinished recommendations touch now.

    Flows of two cycles may overlap on a slow engine; reading the database again at
    planning time keeps a later run off the VMs and hosts an earlier one just planned.
    The run's own recommendations do not count (a task re-run after a crash re-plans them).
    """
    hosts, vms = set(busy_hosts or ()), set(busy_vms or ())
    for status in models.RECOMMENDATION_STATUSES:
        if status in models.RECOMMENDATION_FINAL:
            continue
        for rec in db_api.list_recommendations(db, status=status):
            if rec["event_id"] != own_event_id:
                vms.add(rec["vm_id"])
                hosts.update(h for h in (rec["source_host"], rec["target_host"]) if h)
    return m.BusySet(hosts=frozenset(hosts), vms=frozenset(vms))


def configs(db, aggregate: str):
    """(AppConfig, AggregateConfig) as they are now."""
    return db_api.get_app_config(db), db_api.get_aggregate_config(db, aggregate)
