"""Evacuation tiers: runs started side by side ask Nova tier by tier (``evacuate_order``), in parallel inside a tier.

VMs with the same ``evacuate_order`` form a tier, lower orders first; VMs without one form
the last tier. The first tier opens at once. Tier k opens when every run of tier k-1 has
had its request *accepted* by Nova (Nova answered with the migration record it made:
the run journals "... accepted") or has ended without (failed, cancelled), or
``tier_wait_s`` after tier k-1 opened, whichever comes first: a stuck VM delays the next
tier by at most that bound, never blocks it. A run waits for its tier before it prepares
and asks Nova; inside an open tier the runs ask side by side.

Waits are measured on the flow's clock (``keyvrm.clock.wait_until``): on a simulated one,
including the simulator's in-turn clock, a waiting run sleeps on it so the runs it waits
for can go on.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Optional

from keyvrm import clock as clocks

TIER_WAIT_S = 60.0
TURN_POLL_S = 1.0  # how often a waiting run on a simulated clock looks whether its tier opened


def tiers_by_order(recommendation_ids, evacuate_order) -> list:
    """The ids grouped into tiers: one per ``evacuate_order`` value ascending, those without one last.

    ``evacuate_order`` maps an id to its VM's order (None or missing: no order). Inside a
    tier the ids keep their given (planned) order.
    """
    by_value = {}
    for rec_id in recommendation_ids:
        by_value.setdefault(evacuate_order.get(rec_id), []).append(rec_id)
    ordered = sorted(value for value in by_value if value is not None)
    return [by_value[value] for value in ordered] + ([by_value[None]] if None in by_value else [])


@dataclasses.dataclass(frozen=True)
class TierWait:
    """How a run's tier opened after it had to wait: for the journal."""

    tier: int  # 1-based
    tiers: int
    waited_s: float
    by_bound: bool  # opened because ``tier_wait_s`` passed, not because tier - 1 was accepted

    def message(self, tier_wait_s: float) -> str:
        """The journal line an operator reads."""
        why = ("[executor] tier_wait (%d s) passed before every evacuation of tier %d was accepted"
               % (tier_wait_s, self.tier - 1)) if self.by_bound else \
            "every evacuation of tier %d was accepted or ended" % (self.tier - 1)
        return "evacuate_order tier %d of %d opened after %d s: %s" % (
            self.tier, self.tiers, round(self.waited_s), why)


class TierGate:
    """Which tier each recommendation id is in, and which tiers are open (see the module docstring)."""

    def __init__(self, tiers, clock, tier_wait_s: float = TIER_WAIT_S):
        self.tier_wait_s = tier_wait_s
        self._clock = clock
        self._tier_of = {rec_id: index for index, tier in enumerate(tiers) for rec_id in tier}
        self._unsettled = [set(tier) for tier in tiers]
        self._opened_at = [None] * len(tiers)
        self._by_bound = [False] * len(tiers)
        if tiers:
            self._opened_at[0] = clock.time()
        self._changed = threading.Condition()

    def _open_due(self, now) -> None:
        """Open every tier whose predecessor settled or whose bound passed (``_changed`` held)."""
        for k in range(1, len(self._opened_at)):
            if self._opened_at[k] is not None:
                continue
            before = self._opened_at[k - 1]
            if before is None:
                return
            if not self._unsettled[k - 1]:
                self._opened_at[k] = max(before, now)
            elif now >= before + self.tier_wait_s:
                self._opened_at[k] = before + self.tier_wait_s
                self._by_bound[k] = True
            else:
                return

    def is_open(self, rec_id) -> bool:
        """Whether the run of ``rec_id`` may ask Nova now (ids of no tier always may)."""
        tier = self._tier_of.get(rec_id)
        if tier is None:
            return True
        with self._changed:
            self._open_due(self._clock.time())
            return self._opened_at[tier] is not None

    def wait_turn(self, rec_id, clock) -> Optional[TierWait]:
        """Block until the tier of ``rec_id`` is open; how it opened if the run had to wait, else None."""
        tier = self._tier_of.get(rec_id)
        if tier is None or self.is_open(rec_id):
            return None
        began = clock.time()

        def opened():
            self._open_due(self._clock.time())
            return self._opened_at[tier] is not None
        clocks.wait_until(clock, self._changed, opened, TURN_POLL_S)
        return TierWait(tier + 1, len(self._opened_at), clock.time() - began, self._by_bound[tier])

    def _settle(self, rec_id) -> None:
        tier = self._tier_of.get(rec_id)
        if tier is None:
            return
        with self._changed:
            self._unsettled[tier].discard(rec_id)
            self._open_due(self._clock.time())
            self._changed.notify_all()

    def accepted(self, rec_id) -> None:
        """Nova accepted the request of ``rec_id`` (idempotent)."""
        self._settle(rec_id)

    def ended(self, rec_id) -> None:
        """The run of ``rec_id`` ended, whether or not Nova accepted it (idempotent)."""
        self._settle(rec_id)
