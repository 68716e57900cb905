"""Every status and state KeyVRM stores and serves, and the one table of the moves between them.

The values are ``StrEnum`` members: they compare equal to the strings stored in the
database and shown by the API, so rows written before this module existed read the same.
``TRANSITIONS`` says, per field, which value may follow which; ``keyvrm.db`` calls
``check_move`` before it writes a new value, and the API's OpenAPI document takes its
``enum`` lists from these classes.
"""

import enum

from keyvrm import exception


class EventKind(enum.StrEnum):
    """Which run an event records: high availability, load balancing, an operator's drain of a host, a failback."""

    HA = "HA"
    LB = "LB"
    DRAIN = "drain"
    FAILBACK = "failback"  # VMs KeyVRM moved off a host, back to it once it is in service again


class OutcomeKind(enum.StrEnum):
    """Which run a cycle outcome records; NOOP: the aggregate was not processed (and why)."""

    HA = "HA"
    LB = "LB"
    NOOP = "NOOP"


class EventStatus(enum.StrEnum):
    """Where an event is in its life: planning, waiting for an operator, executing, done."""

    CREATED = "created"
    GENERATING = "generating"
    GENERATED = "generated"
    MANUAL_ACTION = "manual_action"
    EXECUTING = "executing"
    COMPLETED = "completed"


class EventState(enum.StrEnum):
    """How a completed event ended."""

    HEALTHY = "healthy"
    WARNING = "warning"
    ERROR = "error"


class RecommendationAction(enum.StrEnum):
    """What a recommendation does to its VM."""

    EVACUATE = "evacuate"
    LIVE_MIGRATE = "live_migrate"
    COLD_MIGRATE = "cold_migrate"  # Nova's migrate (with a host) then confirmResize: a drain's, with allow_cold
    STOP = "stop"


class RecommendationStatus(enum.StrEnum):
    """Where a recommendation is: waiting (to run by itself or for an operator), running, or final."""

    CREATED = "created"
    MANUAL_ACTION = "manual_action"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class OperationKind(enum.StrEnum):
    """What one line of a recommendation's journal records."""

    START = "start"
    PREPARE = "prepare"
    EXECUTE = "execute"
    SUCCESS = "success"
    RETRY = "retry"
    ERROR = "error"
    CLEANUP = "cleanup"
    CANCEL = "cancel"


class HypervisorState(enum.StrEnum):
    """KeyVRM's own state of a host (``ok``: KeyVRM holds it for nothing)."""

    OK = "ok"
    FENCING = "fencing"
    FENCED = "fenced"
    EVACUATING = "evacuating"
    MAINTENANCE = "maintenance"
    ERROR = "error"
    RESTORING = "restoring"
    DRAINING = "draining"  # an operator's drain: its VMs are being live-migrated away
    DRAIN_INCOMPLETE = "drain_incomplete"  # the drain ended with VMs left on the host (the reason names them)


class CycleStatus(enum.StrEnum):
    """Where a cycle is: asked for by an operator, running, or how it ended."""

    RUNNING = "running"
    COMPLETED = "completed"
    SKIPPED = "skipped"
    FAILED = "failed"
    REQUESTED = "requested"


_E, _R, _H, _C = EventStatus, RecommendationStatus, HypervisorState, CycleStatus

RECOMMENDATION_FINAL = (_R.SUCCEEDED, _R.FAILED, _R.CANCELLED)
CYCLE_FINISHED = (_C.COMPLETED, _C.SKIPPED, _C.FAILED)
# Hosts one HA run owns (or has given its outcome): no other run claims them.
HYPERVISOR_CLAIMED = (_H.FENCING, _H.FENCED, _H.EVACUATING, _H.MAINTENANCE, _H.ERROR, _H.RESTORING)
# Hosts an HA run is working on right now.
HYPERVISOR_IN_HA_RUN = (_H.FENCING, _H.FENCED, _H.EVACUATING)
# Hosts an admin may return to service (not while an HA run fences or evacuates them); a
# draining host's drain is cancelled (what has not started) when it is returned.
HYPERVISOR_RESTORABLE = (_H.FENCED, _H.MAINTENANCE, _H.ERROR, _H.DRAINING, _H.DRAIN_INCOMPLETE)
# Hosts being drained: alive, their compute service disabled by KeyVRM; HA still watches them.
HYPERVISOR_DRAINING = (_H.DRAINING, _H.DRAIN_INCOMPLETE)

# field -> {from: values it may become}. A new row starts in the first status of its
# field (a recommendation: created or manual_action; a cycle: running or requested; a
# host without a row is ok). A value may be written again where a task that runs twice
# (after an engine restart) writes it twice; a final value is never left, except that a
# cycle's flow failing after the cycle ended records the failure.
TRANSITIONS = {
    "event.status": {
        _E.CREATED: (_E.GENERATING, _E.GENERATED, _E.MANUAL_ACTION, _E.EXECUTING, _E.COMPLETED),
        _E.GENERATING: (_E.GENERATING, _E.GENERATED, _E.MANUAL_ACTION, _E.EXECUTING, _E.COMPLETED),
        _E.GENERATED: (_E.GENERATED, _E.MANUAL_ACTION, _E.EXECUTING, _E.COMPLETED),
        _E.MANUAL_ACTION: (_E.MANUAL_ACTION, _E.EXECUTING, _E.COMPLETED),
        _E.EXECUTING: (_E.EXECUTING, _E.COMPLETED),
        _E.COMPLETED: (_E.COMPLETED,),
    },
    "recommendation.status": {
        _R.CREATED: (_R.RUNNING, _R.CANCELLED),
        _R.MANUAL_ACTION: (_R.CREATED, _R.RUNNING, _R.CANCELLED),
        _R.RUNNING: (_R.SUCCEEDED, _R.FAILED, _R.CANCELLED),
        _R.SUCCEEDED: (), _R.FAILED: (), _R.CANCELLED: (),
    },
    "cycle.status": {
        _C.REQUESTED: (_C.RUNNING,),
        _C.RUNNING: CYCLE_FINISHED,
        _C.COMPLETED: (_C.FAILED,), _C.SKIPPED: (_C.FAILED,), _C.FAILED: (_C.FAILED,),
    },
    "hypervisor.state": {
        # from ok: an HA run claims the host (fencing); a state recorded directly (an operator's, a
        # host found already fenced) may be any other but restoring, which only a held host reaches.
        # A held host becomes fencing again only when the run holding it claims it again (a re-run).
        _H.OK: (_H.OK, _H.FENCING, _H.FENCED, _H.EVACUATING, _H.MAINTENANCE, _H.ERROR, _H.DRAINING),
        _H.FENCING: (_H.FENCING, _H.FENCED, _H.ERROR, _H.OK),
        _H.FENCED: (_H.FENCED, _H.FENCING, _H.EVACUATING, _H.ERROR, _H.RESTORING, _H.OK),
        _H.EVACUATING: (_H.EVACUATING, _H.FENCING, _H.MAINTENANCE, _H.ERROR, _H.OK),
        _H.MAINTENANCE: (_H.MAINTENANCE, _H.FENCING, _H.ERROR, _H.RESTORING, _H.OK),
        _H.ERROR: (_H.ERROR, _H.FENCING, _H.MAINTENANCE, _H.RESTORING, _H.OK),
        _H.RESTORING: (_H.RESTORING, _H.OK),
        # a drain ends empty (maintenance) or with VMs left; a host that dies meanwhile is HA's to fence
        _H.DRAINING: (_H.DRAINING, _H.MAINTENANCE, _H.DRAIN_INCOMPLETE, _H.FENCING, _H.RESTORING),
        _H.DRAIN_INCOMPLETE: (_H.DRAIN_INCOMPLETE, _H.DRAINING, _H.MAINTENANCE, _H.FENCING, _H.RESTORING),
    },
}


def sources(field, to) -> tuple:
    """The values of ``field`` from which it may become ``to`` (for a conditional UPDATE's WHERE)."""
    return tuple(old for old, allowed in TRANSITIONS[field].items() if to in allowed)


def check_move(field, old, new, ident=None) -> None:
    """Refuse a move of ``field`` (of row ``ident``) from ``old`` to ``new`` the table does not allow.

    Raises ``InvalidTransition`` (a ``Conflict``) naming the field, both values and the row.
    """
    if new not in TRANSITIONS[field].get(old, ()):
        raise exception.InvalidTransition(field, old, new, ident)


def values(kind) -> list:
    """The plain strings of the enum ``kind``, in declaration order (an OpenAPI ``enum`` list)."""
    return [member.value for member in kind]
