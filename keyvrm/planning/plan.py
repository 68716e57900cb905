"""What a planner returns: frozen moves and reasons, deterministic for the same input."""

from __future__ import annotations

import dataclasses
from typing import Optional

EVACUATE = "evacuate"
LIVE_MIGRATE = "live_migrate"
COLD_MIGRATE = "cold_migrate"


@dataclasses.dataclass(frozen=True, slots=True)
class HostLoadCalc:
    """One host's load before and after a move, in %."""

    cpu_before_pct: Optional[float]
    cpu_after_pct: Optional[float]
    ram_before_pct: Optional[float]
    ram_after_pct: Optional[float]
    net_before_pct: Optional[float]
    net_after_pct: Optional[float]
    syn_score_before_pct: Optional[float]
    syn_score_after_pct: Optional[float]


@dataclasses.dataclass(frozen=True, slots=True)
class LoadCalculation:
    """The LB load calculation of one recommendation: source and target, before/after."""

    source: HostLoadCalc
    target: HostLoadCalc


@dataclasses.dataclass(frozen=True, slots=True)
class PlannedMove:
    """One recommendation to be created: move ``vm_id`` from ``source`` to ``target``."""

    vm_id: str
    action: str
    source: str
    target: str
    ha_round: Optional[int] = None
    load: Optional[LoadCalculation] = None
    ram_mb: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """Moves to recommend, in order, and the reasons for everything not moved."""

    moves: tuple = ()
    reasons: tuple = ()

    @property
    def is_error(self) -> bool:
        """The run must end its event in the error state (SPEC 4)."""
        return any(reason.is_error for reason in self.reasons)

    def target_of(self, vm_id: str) -> Optional[str]:
        for move in self.moves:
            if move.vm_id == vm_id:
                return move.target
        return None
