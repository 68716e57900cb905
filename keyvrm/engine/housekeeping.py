"""The leader's housekeeping between cycles: the sweep of lost work and history retention, each when due.

The leading engine sweeps (``keyvrm.engine.sweep``) when it begins to lead and then
every ``sweep.SWEEP_INTERVAL_S``, and deletes history older than ``[database]
history_keep_days`` every ``PURGE_INTERVAL_S``. Both intervals run on the engine's
injected clock, the same one the sweep's grace and the records' times use, so the
scenario harness runs this housekeeping on the simulated region's time as the engine
runs it on the wall. (The manual timeout is not here: it is a step of every cycle,
MasterFlow's ``cancel_expired_manual``.)
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Optional

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.engine import sweep

LOG = logging.getLogger(__name__)

PURGE_INTERVAL_S = 3600.0  # how often the leader applies [database] history_keep_days


def _due(last_s, interval_s, now_s) -> bool:
    """Whether ``interval_s`` has passed since ``last_s`` (never run, or a clock set back: at once)."""
    return last_s is None or now_s < last_s or now_s - last_s >= interval_s


@dataclasses.dataclass(frozen=True)
class Done:
    """What one look did: the sweep's findings and the rows purged per table (None: not due)."""

    swept: Optional[sweep.Swept] = None
    purged: Optional[dict] = None


class Housekeeping:
    """When the leader last swept and purged, on ``clock``; ``run`` does what is due."""

    def __init__(self, clock):
        self._clock = clock
        self._last_sweep_s = None
        self._last_purge_s = None

    def run(self, dispatcher, persistence, keep_days: int, *, first: bool) -> Done:
        """Sweep when this engine has just begun to lead (``first``) or the interval passed; purge hourly.

        ``keep_days`` 0 keeps history for ever (no purge). The sweep's findings are
        logged as a warning, a purge that deleted rows as info.
        """
        now_s = self._clock.time()
        swept = purged = None
        if first or _due(self._last_sweep_s, sweep.SWEEP_INTERVAL_S, now_s):
            swept = sweep.sweep(dispatcher.resources, persistence, dispatcher)
            self._last_sweep_s = now_s
            if swept.count:
                LOG.warning("sweep of work no flow carries on: %s", swept.describe())
        if keep_days and _due(self._last_purge_s, PURGE_INTERVAL_S, now_s):
            self._last_purge_s = now_s
            before = datetime.datetime.fromtimestamp(now_s - keep_days * 86400.0,
                                                     datetime.timezone.utc).replace(tzinfo=None)
            purged = db_api.purge_history(dispatcher.resources.db, before)
            if any(purged.values()):
                LOG.info("history older than %d days purged: %s", keep_days,
                         ", ".join("%d %s" % (n, table) for table, n in purged.items()))
        return Done(swept, purged)
