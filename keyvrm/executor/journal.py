"""A recommendation's operation journal: writing its lines, and reading back where a run stood.

The lines that a resumed run needs to read (the migration an attempt started, the VM's
status at the first prepare, the error of each retried attempt) are written and parsed
here only, so their formats live in one place.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

from keyvrm.db import api as db_api

_ACCEPTED = re.compile(r" accepted as migration (\d+)$")
_PREPARED = re.compile(r"^VM (\S+) on ")
_RETRY = re.compile(r"^attempt \d+ failed: (\S+) ")
_CANCEL_REQUEST = "cancel requested by "


class Journal:
    """Appends operation rows for one recommendation; durations come from the injected clock."""

    def __init__(self, db, recommendation_id, clock):
        self.db = db
        self.recommendation_id = recommendation_id
        self.clock = clock

    def write(self, kind, attempt, message=None, error=None, started_s=None):
        """Append one row; ``started_s`` (clock time the step began) gives its duration."""
        duration = None if started_s is None else max(0.0, self.clock.time() - started_s)
        db_api.add_operation(self.db, self.recommendation_id, kind, attempt, message=message,
                             error=None if error is None else str(error), duration_s=duration)


def accepted_message(action, target, migration_id) -> str:
    """The ``execute`` line of an accepted migration (``Progress.migration_id`` reads it back)."""
    return "%s to %s accepted as migration %s" % (action, target, migration_id)


def ended_message(migration, target, nova_fault=None) -> str:
    """The error text of a migration that ended without success, with Nova's fault message if it has one."""
    ended = "%s to %s ended %s" % (migration.migration_type, target, migration.status)
    return "%s; Nova's fault: %s" % (ended, nova_fault) if nova_fault else ended


def carried_message(action, target, migration_id) -> str:
    """The ``execute`` line naming the VM's older record Nova carries an evacuation on.

    ``Progress.migration_id`` reads it back: the record a resumed run follows.
    """
    return "%s to %s carried by Nova on the VM's older evacuation record, accepted as migration %s" % (
        action, target, migration_id)


def prepared_message(server, status, target, left_by_dead_hosts=None) -> str:
    """The ``prepare`` line (``Progress.first_status`` reads ``status`` back, the server's without a task).

    ``left_by_dead_hosts`` (not None: the VM's task was left by work on dead hosts, with
    the ids of its ``accepted`` evacuations) says why a VM with a task goes ahead.
    """
    line = "VM %s on %s; target %s has room" % (status, server.host, target)
    if left_by_dead_hosts is not None:
        line += "; task_state %s (Nova shows %s) left by work on dead hosts%s: evacuated again" % (
            server.task_state, server.status, " (migrations %s stay accepted)" % ", ".join(map(str, left_by_dead_hosts))
            if left_by_dead_hosts else "")
    return line


def retry_message(verdict, attempt) -> str:
    """The ``retry`` line of a failed attempt (``Progress.error_keys`` reads the row back)."""
    return "attempt %d failed: %s (%s); next attempt %d" % (
        attempt, verdict.rule, verdict.verdict, attempt + 1)


@dataclasses.dataclass(frozen=True)
class Progress:
    """Where an interrupted run stood, read from its journal."""

    attempt: int = 0  # the last attempt that started (0: none)
    attempt_closed: bool = False  # that attempt already failed and a retry was decided
    migration_id: Optional[int] = None  # the migration that attempt started, if any
    first_status: Optional[str] = None  # the VM's status at the first prepare
    error_keys: tuple = ()  # (rule, error text) of each retried attempt, in order


def progress(operations) -> Progress:
    """Read ``Progress`` from a journal (``db_api.list_operations`` rows, oldest first)."""
    attempt, closed, migration_id, first_status, errors = 0, False, None, None, []
    for op in operations:
        if op["kind"] in ("prepare", "execute") and op["attempt"] > attempt:
            attempt, closed, migration_id = op["attempt"], False, None
        message = op["message"] or ""
        if op["kind"] == "prepare" and first_status is None:
            match = _PREPARED.match(message)
            first_status = match.group(1) if match else None
        elif op["kind"] == "execute" and op["attempt"] == attempt:
            match = _ACCEPTED.search(message)
            if match:
                migration_id = int(match.group(1))
        elif op["kind"] == "retry":
            match = _RETRY.match(message)
            closed = True
            errors.append((match.group(1) if match else "unknown", op["error"] or ""))
    return Progress(attempt, closed, migration_id, first_status, tuple(errors))


def cancel_request(operations) -> Optional[str]:
    """The operator's pending cancel request ("cancel requested by ..."), if there is one."""
    for op in operations:
        if op["kind"] == "cancel" and (op["message"] or "").startswith(_CANCEL_REQUEST):
            return op["message"]
    return None
