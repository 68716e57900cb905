"""What a flow task reads for its run: the stored snapshot, the busy set, the business config."""

from __future__ import annotations

import collections
import threading

from keyvrm.db import api as db_api
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


def busy_of(busy_hosts, busy_vms) -> m.BusySet:
    """The busy set a store carries as two lists."""
    return m.BusySet(hosts=frozenset(busy_hosts or ()), vms=frozenset(busy_vms or ()))


def configs(db, aggregate: str):
    """(AppConfig, AggregateConfig) as they are now."""
    return db_api.get_app_config(db), db_api.get_aggregate_config(db, aggregate)
