"""When the next MasterFlow is due: a fixed grid of ``period_s``, so cycles never drift.

Cycle k is due at ``anchor + k * period_s``. A cycle that starts late (a slow previous
cycle, a takeover) does not shift the grid: the next one is due at the next grid point,
and grid points missed entirely are skipped rather than run back to back. A changed
period re-bases the grid on the last tick.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional


@dataclasses.dataclass(frozen=True)
class Schedule:
    """The last grid point a cycle ran for (None before the first cycle)."""

    last_tick_s: Optional[float] = None

    def next_due_s(self, period_s: float) -> Optional[float]:
        """When the next cycle is due (None: at once, there was none yet)."""
        if self.last_tick_s is None:
            return None
        return self.last_tick_s + period_s

    def is_due(self, now_s: float, period_s: float) -> bool:
        """Whether a cycle should start at ``now_s``."""
        due = self.next_due_s(period_s)
        return due is None or now_s >= due

    def ticked(self, now_s: float, period_s: float) -> "Schedule":
        """The schedule after starting a cycle at ``now_s``: anchored on the latest grid point <= now."""
        if self.last_tick_s is None or now_s < self.last_tick_s:
            return Schedule(now_s)
        steps = math.floor((now_s - self.last_tick_s) / period_s)
        return Schedule(self.last_tick_s + steps * period_s)
