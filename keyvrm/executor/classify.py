"""What a failed attempt means: retry, clean up then retry, or give up — decided by a table.

A ``Failure`` describes one failed attempt: an error answer of a call (``origin`` "call":
HTTP status, our ``cloud_code`` and Nova's message), a migration record that ended badly
(``origin`` "migration": its status and the leftovers found on the target afterwards), a
migration that outlived the lifecycle timeout ("timeout") or one that "completed" with
the VM elsewhere ("outcome"), one whose target died meanwhile ("target_down"), or a
finished cold migration whose ``confirmResize`` Nova refused ("confirm").
``RULES`` is read top to bottom: the first matching row
names the error and gives its class; the cleanups of *every* matching row are done (a
failed attempt can leave a port binding and a volume attachment behind at once).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional

from keyvrm.drivers import errors

RETRY = "retry"
RETRY_AFTER_CLEANUP = "retry_after_cleanup"
FATAL = "fatal"

# Cleanup actions (keyvrm.executor.cleanup.CLEANUPS runs them).
DELETE_INACTIVE_PORT_BINDINGS = "delete_inactive_port_bindings"
DELETE_STALE_VOLUME_ATTACHMENTS = "delete_stale_volume_attachments"

# Leftovers a failed migration can leave (keyvrm.executor.cleanup.leftovers finds them).
INACTIVE_BINDING = "inactive_port_binding"
STALE_ATTACHMENT = "stale_volume_attachment"

CALL, MIGRATION, TIMEOUT, OUTCOME = "call", "migration", "timeout", "outcome"
TARGET_DOWN = "target_down"  # the target's compute service went down while the migration ran
CONFIRM = "confirm"  # Nova refused to confirm a finished cold migration (the VM waits VERIFY_RESIZE on its target)


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failed attempt, as the classifier reads it."""

    origin: str
    message: str
    status_code: Optional[int] = None
    cloud_code: Optional[str] = None
    migration_status: Optional[str] = None
    leftovers: frozenset = frozenset()


@dataclasses.dataclass(frozen=True)
class Rule:
    """One row of the table; a criterion left None matches anything."""

    name: str
    verdict: str
    cleanup: tuple = ()
    origin: Optional[str] = None
    status_codes: Optional[range] = None
    cloud_codes: Optional[tuple] = None
    pattern: Optional[str] = None
    migration_statuses: Optional[tuple] = None
    leftover: Optional[str] = None

    def matches(self, failure: Failure) -> bool:
        """Whether every criterion of this row holds for ``failure``."""
        return ((self.origin is None or failure.origin == self.origin)
                and (self.status_codes is None or failure.status_code in self.status_codes)
                and (self.cloud_codes is None or failure.cloud_code in self.cloud_codes)
                and (self.pattern is None or re.search(self.pattern, failure.message or "", re.I))
                and (self.migration_statuses is None
                     or failure.migration_status in self.migration_statuses)
                and (self.leftover is None or self.leftover in failure.leftovers))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The classifier's answer: the row that named the error, its class, the cleanups to do."""

    rule: str
    verdict: str
    cleanup: tuple


_4XX = range(400, 500)
_5XX = range(500, 600)

RULES = (
    # Leftovers of a failed attempt on the target: remove them, then try again.
    Rule("inactive_port_binding", RETRY_AFTER_CLEANUP, (DELETE_INACTIVE_PORT_BINDINGS,),
         leftover=INACTIVE_BINDING),
    Rule("stale_volume_attachment", RETRY_AFTER_CLEANUP, (DELETE_STALE_VOLUME_ATTACHMENTS,),
         leftover=STALE_ATTACHMENT),
    Rule("port_binding_exists", RETRY_AFTER_CLEANUP, (DELETE_INACTIVE_PORT_BINDINGS,),
         pattern=r"binding for port \S+ for host \S+ already exists|PortBindingAlreadyExists"),
    Rule("volume_still_attached", RETRY_AFTER_CLEANUP, (DELETE_STALE_VOLUME_ATTACHMENTS,),
         pattern=r"invalid volume|is still attached"),
    # Never insist.
    Rule("target_down", FATAL, origin=TARGET_DOWN),
    Rule("migration_timeout", FATAL, origin=TIMEOUT),
    Rule("wrong_host_after_migration", FATAL, origin=OUTCOME),
    Rule("confirm_refused", FATAL, origin=CONFIRM),  # the VM is on the target: another attempt would not start
    Rule("source_service_in_use", FATAL, status_codes=_4XX, cloud_codes=("service_in_use",)),
    Rule("source_service_unavailable", FATAL, status_codes=_4XX,
         pattern=r"compute service of \S+ is unavailable"),
    Rule("same_host", FATAL, status_codes=_4XX, cloud_codes=("same_host",)),
    Rule("not_found", FATAL, status_codes=range(404, 405)),
    Rule("vm_state_forbids", FATAL, status_codes=range(409, 410), pattern=r"in vm_state"),
    # Transient.
    Rule("task_state_busy", RETRY, status_codes=range(409, 410), pattern=r"in task_state"),
    Rule("api_unavailable", RETRY, origin=CALL, status_codes=_5XX),
    Rule("no_answer", RETRY, origin=CALL, cloud_codes=(errors.DriverUnavailable.code,)),
    Rule("migration_error", RETRY, origin=MIGRATION, migration_statuses=("error",)),
    Rule("migration_failed", RETRY, origin=MIGRATION),
    # Anything else Nova refused with a 4xx will be refused again.
    Rule("refused", FATAL, status_codes=_4XX),
    Rule("unknown", RETRY),
)


def classify(failure: Failure, rules=RULES) -> Verdict:
    """The first matching row's name and class, with the cleanups of every matching row."""
    matching = [rule for rule in rules if rule.matches(failure)]
    cleanup = []
    for rule in matching:
        cleanup.extend(c for c in rule.cleanup if c not in cleanup)
    return Verdict(matching[0].name, matching[0].verdict, tuple(cleanup))


def call_failure(error: errors.DriverError) -> Failure:
    """A ``Failure`` from an error a driver call raised."""
    return Failure(CALL, str(error), status_code=getattr(error, "status_code", None),
                   cloud_code=getattr(error, "cloud_code", None) or error.code)


def error_key(rule: str, message: str) -> str:
    """What makes two errors "the same": the row plus the message with ids and numbers blanked."""
    blanked = re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|\d+", "#", message or "")
    return "%s|%s" % (rule, blanked)
