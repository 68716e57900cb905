"""What a flow task reads for its run: its aggregate's slice of the snapshot, the busy set, the business config."""

from __future__ import annotations

import collections
import threading

from keyvrm.db import api as db_api
from keyvrm.model import slices
from keyvrm.model import snapshot as m
from keyvrm.model import states

# Per snapshot (the newest few a flow of this process read): the slices decoded or cut so
# far, and the slicer of the newest one this process harvested (it holds a whole snapshot).
# Slices of older snapshots go with them: each keeps its snapshot's records alive.
_SNAPSHOTS_KEPT = 2
_kept = collections.OrderedDict()  # (database URL, snapshot id) -> _Kept
_lock = threading.Lock()


class _Kept:
    def __init__(self, slicer=None):
        self.slicer = slicer
        self.slices = {}


def _entry(key, slicer=None) -> _Kept:
    kept = _kept.get(key)
    if kept is None:
        kept = _kept[key] = _Kept(slicer)
    elif slicer is not None:
        kept.slicer = slicer
    _kept.move_to_end(key)
    while len(_kept) > _SNAPSHOTS_KEPT:
        _kept.popitem(last=False)
    return kept


def remember(db, snapshot_id: int, slicer: slices.Slicer) -> None:
    """Keep the slicer of a snapshot this process just stored: its slices need no decoding here.

    Only the newest slicer is kept: an older snapshot keeps the slices already cut from it.
    """
    with _lock:
        for kept in _kept.values():
            kept.slicer = None
        _entry((db.url, snapshot_id), slicer)


def load_slice(db, snapshot_id: int, aggregate: str) -> m.RegionSnapshot:
    """The slice of ``aggregate`` in stored snapshot ``snapshot_id`` (``keyvrm.model.slices``).

    Cut from the snapshot itself when this process harvested it, else decoded alone from
    the database; kept, so the flows of one cycle share it.
    """
    key = (db.url, snapshot_id)
    with _lock:
        kept = _entry(key)
        found, slicer = kept.slices.get(aggregate), kept.slicer
    if found is not None:
        return found
    view = slicer.slice_of(aggregate) if slicer is not None else \
        db_api.load_snapshot_slice(db, snapshot_id, aggregate)
    with _lock:
        _entry(key).slices[aggregate] = view
    return view


def busy_now(db, busy_hosts, busy_vms, own_event_id: str) -> m.BusySet:
    """The cycle's busy set plus what other unfinished recommendations touch now.

    Flows of two cycles may overlap on a slow engine; reading the database again at
    planning time keeps a later run off the VMs and hosts an earlier one just planned.
    The run's own recommendations do not count (a task re-run after a crash re-plans them).
    """
    hosts, vms = set(busy_hosts or ()), set(busy_vms or ())
    for status in states.RecommendationStatus:
        if status in states.RECOMMENDATION_FINAL:
            continue
        for rec in db_api.list_recommendations(db, status=status):
            if rec["event_id"] != own_event_id:
                vms.add(rec["vm_id"])
                hosts.update(h for h in (rec["source_host"], rec["target_host"]) if h)
    return m.BusySet(hosts=frozenset(hosts), vms=frozenset(vms))


def busy_for_evacuation(db, own_event_id: str) -> m.BusySet:
    """What an HA plan keeps off now: the VMs and hosts other unfinished recommendations touch, read now.

    Less the hosts they touch only as the targets of their evacuations: evacuations are
    not moves in flux a plan must keep off, and a host receiving another HA run's VMs may
    receive this run's too, Placement deciding the room (the executor checks the target's
    room before it asks Nova, and round 2 re-plans a VM whose target filled up). Without
    this, two hosts dying together in a small aggregate leave the second one's VMs without
    a target, the only live hosts busy with the first one's evacuations. Read from the
    database alone: the cycle's busy set may hold work that has ended since.
    """
    vms, other_work, evacuation_targets = set(), set(), set()
    for status in states.RecommendationStatus:
        if status in states.RECOMMENDATION_FINAL:
            continue
        for rec in db_api.list_recommendations(db, status=status):
            if rec["event_id"] == own_event_id:
                continue
            vms.add(rec["vm_id"])
            other_work.add(rec["source_host"])
            if rec["target_host"]:
                (evacuation_targets if rec["action"] == "evacuate" else other_work).add(rec["target_host"])
    return m.BusySet(hosts=frozenset(other_work), vms=frozenset(vms))


def configs(db, aggregate: str):
    """(AppConfig, AggregateConfig) as they are now."""
    return db_api.get_app_config(db), db_api.get_aggregate_config(db, aggregate)
