"""Store a harvested snapshot (compressed, with retention), its hosts as rows, and make aggregate_config follow Nova."""

from __future__ import annotations

import datetime

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.db import hypervisors as hypervisors_db
from keyvrm.model import snapshot as m

LOG = logging.getLogger(__name__)

NO_SYNC = db_api.AggregateSync((), (), ())


def store_and_sync(db, snapshot: m.RegionSnapshot, *, keep_count: int, keep_days: int,
                   now_s: float, slicer=None):
    """Store ``snapshot`` in region_data, its hosts as the current hypervisors, and sync aggregates.

    Returns (snapshot id, AggregateSync). The host rows are what the API lists; a snapshot
    without hosts (Nova down) leaves the previous ones (``hypervisors_db.replace_hypervisors``).
    Retention: the newest ``keep_count`` snapshots are kept, and none older than
    ``keep_days`` days (0: by count only). Aggregates are synced only when Nova answered
    this cycle: a failed read must not mark every aggregate deleted (then the returned
    sync is empty). ``slicer``: the snapshot's ``slices.Slicer``, when the caller keeps it.
    """
    now = datetime.datetime.fromtimestamp(now_s, datetime.timezone.utc).replace(tzinfo=None)
    snapshot_id = db_api.store_snapshot(db, snapshot, keep_count, keep_days, now=now, slicer=slicer)
    hypervisors_db.replace_hypervisors(db, snapshot_id, snapshot)
    if not snapshot.source_ok(m.SOURCE_NOVA):
        LOG.warning("aggregates not synced: Nova did not answer this cycle (%s)",
                    snapshot.sources.get(m.SOURCE_NOVA))
        return snapshot_id, NO_SYNC
    sync = db_api.sync_aggregates(db, snapshot.aggregates, now=now)
    if sync.created or sync.deleted or sync.restored:
        LOG.info("aggregates synced with Nova: new (NOOP) %s, deleted %s, restored %s",
                 list(sync.created), list(sync.deleted), list(sync.restored))
    return snapshot_id, sync
