"""The last step of a cold migration: confirm it once Nova has finished it, and follow the confirmation.

Nova ends a cold migration's copy with the record ``finished`` and the server
VERIFY_RESIZE on its target, the source's allocation still held; nothing more happens
until someone confirms (or reverts) it. The executor confirms it at once
(``confirmResize``) and follows the record to ``confirmed``. A confirmation Nova refuses
for now (5xx, 409, no answer) is asked again at each poll interval until the lifecycle
deadline, unless the record shows someone else confirmed it meanwhile (Nova's
``resize_confirm_window``, an operator); any other refusal is final: the VM then stays
VERIFY_RESIZE on its target for the operator to confirm or revert, and the journal says so.
"""

from __future__ import annotations

from typing import Union

from keyvrm.drivers import errors
from keyvrm.executor import classify
from keyvrm.executor import watch
from keyvrm.model import snapshot as m

CONFIRMED_ELSEWHERE = frozenset(("confirming", "confirmed"))
VERIFY_RESIZE = "VERIFY_RESIZE"  # the server's status while its finished cold migration waits


def confirmed_message(migration) -> str:
    """The ``execute`` line of an accepted confirmation."""
    return "migration %s finished (VM VERIFY_RESIZE on %s): confirmResize accepted" % (
        migration.id, migration.dest_host)


def confirm(cloud, journal, attempt, migration, clock, interval_s, deadline_s, abandon=None
            ) -> Union[m.Migration, classify.Failure, None]:
    """Confirm the ``finished`` cold ``migration``; its record once final, None at the deadline.

    Returns the ``Failure`` of the attempt when Nova refuses the confirmation for good (a
    4xx other than 409, or a 409 or 5xx until the deadline) and nobody else confirmed it;
    journals the accepted confirmation or the refusal. ``abandon`` is asked between
    polls, as in ``watch.poll_migration``.
    """
    started = clock.time()
    while True:
        try:
            cloud.confirm_resize(migration.server_id)
            journal.write("execute", attempt, confirmed_message(migration), started_s=started)
            break
        except errors.DriverError as error:
            now = cloud.get_migration(migration.id, migration.server_id)
            if now.status in CONFIRMED_ELSEWHERE:
                journal.write("execute", attempt, "migration %s is %s: confirmed by someone else" % (
                    migration.id, now.status), started_s=started)
                break
            if not (error.retryable and watch.wait_interval(clock, interval_s, deadline_s)):
                return _refused(journal, attempt, migration, now, error, started)
    return watch.poll_migration(cloud, migration.id, clock, interval_s, deadline_s,
                                server_id=migration.server_id, abandon=abandon)


def _refused(journal, attempt, migration, now, error, started) -> classify.Failure:
    message = ("migration %s finished (VM VERIFY_RESIZE on %s) but confirmResize failed: the VM waits there"
               " for an operator to confirm or revert it" % (migration.id, migration.dest_host))
    journal.write("execute", attempt, message, error=error, started_s=started)
    return classify.Failure(classify.CONFIRM, "%s: %s" % (message, error),
                            status_code=getattr(error, "status_code", None), migration_status=now.status)
