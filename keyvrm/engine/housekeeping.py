"""The leader's housekeeping: the sweep of lost work and history retention, each when due.

The leading engine sweeps (``keyvrm.engine.sweep``) when it begins to lead and then
every ``sweep.SWEEP_INTERVAL_S``, and deletes history older than ``[database]
history_keep_days`` every ``PURGE_INTERVAL_S``, in committed batches of ``[database]
purge_max_rows`` (``keyvrm.db.purge``). The engine runs it on a thread of its own, so
however long a purge takes, the liveness key and the leader lock are beaten on time.
Both intervals run on the engine's injected clock, the same one the sweep's grace and
the records' times use, so the scenario harness runs this housekeeping on the simulated
region's time as the engine runs it on the wall. (The manual timeout is not here: it is
a step of every cycle, MasterFlow's ``cancel_expired_manual``.)
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from typing import Callable, Optional

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.db import purge
from keyvrm.engine import sweep

LOG = logging.getLogger(__name__)

PURGE_INTERVAL_S = 3600.0  # how often the leader applies [database] history_keep_days


def _due(last_s, interval_s, now_s) -> bool:
    """Whether ``interval_s`` has passed since ``last_s`` (never run, or a clock set back: at once)."""
    return last_s is None or now_s < last_s or now_s - last_s >= interval_s


@dataclasses.dataclass(frozen=True)
class Done:
    """What one look did: the sweep's findings, the rows purged per table and in how many batches.

    ``swept`` and ``purged`` are None when not due.
    """

    swept: Optional[sweep.Swept] = None
    purged: Optional[dict] = None
    purge_batches: int = 0


class Housekeeping:
    """When the leader last swept and purged, on ``clock``; ``run`` does what is due.

    ``keep_days`` 0 keeps history for ever (no purge); ``max_rows`` is the purge's batch
    size. A purge stops between two batches once ``keep_going()`` says no (the engine
    stops, or no longer leads); the next purge carries on.
    """

    def __init__(self, clock, keep_days: int, max_rows: int, keep_going: Callable[[], bool] = lambda: True):
        self._clock = clock
        self._keep_days = keep_days
        self._max_rows = max_rows
        self._keep_going = keep_going
        self._last_sweep_s = None
        self._last_purge_s = None

    def run(self, dispatcher, persistence, *, first: bool) -> Done:
        """Sweep when this engine has just begun to lead (``first``) or the interval passed; purge hourly.

        The sweep's findings are logged as a warning, a purge that deleted rows as info.
        """
        now_s = self._clock.time()
        swept = None
        if first or _due(self._last_sweep_s, sweep.SWEEP_INTERVAL_S, now_s):
            swept = sweep.sweep(dispatcher.resources, persistence, dispatcher)
            self._last_sweep_s = now_s
            if swept.count:
                LOG.warning("sweep of work no flow carries on: %s", swept.describe())
        if not self._keep_days or not _due(self._last_purge_s, PURGE_INTERVAL_S, now_s):
            return Done(swept)
        self._last_purge_s = now_s
        before = datetime.datetime.fromtimestamp(now_s - self._keep_days * 86400.0,
                                                 datetime.timezone.utc).replace(tzinfo=None)
        return Done(swept, *self._purge(dispatcher.resources.db, before))

    def _purge(self, db, before):
        """Rows purged per table and the batches it took; stops early once ``keep_going`` says no."""
        purged, batches, started = dict.fromkeys(purge.TABLES, 0), 0, time.monotonic()
        for table, rows in db_api.purge_history(db, before, self._max_rows):
            purged[table] += rows
            batches += 1
            LOG.debug("history purge: %d %s deleted", rows, table)
            if not self._keep_going():
                LOG.info("history purge stopped after %d batches (the engine stops or no longer leads); "
                         "the next purge carries on", batches)
                break
        if batches:
            LOG.info("history older than %d days purged in %d batches (%.1f s): %s", self._keep_days,
                     batches, time.monotonic() - started,
                     ", ".join("%d %s" % (n, table) for table, n in purged.items()))
        return purged, batches
