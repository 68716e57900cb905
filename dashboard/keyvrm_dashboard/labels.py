"""The panels' words for the values KeyVRM's API serves: statuses, states, kinds, reason codes, in the user's language.

The API stays English, as OpenStack APIs are (filters, links and the CLI use its values);
a table column shows a value's label through Horizon's ``display_choices``
(``choices(EVENT_STATUSES)``), a template through the ``keyvrm_label`` filter, and a
reason's code is titled by ``reason_heading``. A value without a label is shown as it
comes, so an API newer than the panels still reads.
"""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from keyvrm_dashboard import reason_codes

EVENT_KINDS = {'HA': 'HA', 'LB': 'LB', 'drain': _("drain"), 'failback': _("failback")}
OUTCOME_KINDS = {'HA': 'HA', 'LB': 'LB', 'NOOP': 'NOOP'}
EVENT_STATUSES = {'created': _("created"), 'generating': _("generating recommendations"),
                  'generated': _("recommendations generated"), 'manual_action': _("waiting for manual action"),
                  'executing': _("executing"), 'completed': _("completed")}
EVENT_STATES = {'healthy': _("healthy"), 'warning': _("warning"), 'error': _("error")}
# manual_action is the operator's turn
RECOMMENDATION_STATUSES = {'created': _("queued"), 'running': _("running"),
                           'manual_action': _("waiting for operator"), 'succeeded': _("succeeded"),
                           'failed': _("failed"), 'cancelled': _("cancelled")}
RECOMMENDATION_ACTIONS = {'evacuate': _("evacuation"), 'live_migrate': _("live migration"),
                          'cold_migrate': _("cold migration"), 'stop': _("stop")}
OPERATION_KINDS = {'start': _("start"), 'prepare': _("preparation"), 'execute': _("execution"),
                   'success': _("success"), 'retry': _("retry"), 'error': _("error"), 'cleanup': _("cleanup"),
                   'cancel': _("cancellation")}
HOST_STATES = {'ok': _("ok"), 'fencing': _("fencing"), 'fenced': _("fenced"), 'evacuating': _("evacuating"),
               'maintenance': _("maintenance"), 'error': _("error"), 'restoring': _("returning to service"),
               'draining': _("draining"), 'drain_incomplete': _("drain incomplete")}
CYCLE_STATUSES = {'running': _("running"), 'completed': _("completed"), 'skipped': _("skipped"),
                  'failed': _("failed"), 'requested': _("requested")}
VM_STATES = {'creating': _("creating"), 'deleting': _("deleting"), 'migrating': _("migrating"),
             'restoring': _("restoring"), 'resuming': _("resuming"), 'starting': _("starting"),
             'stopping': _("stopping"), 'suspending': _("suspending"), 'creation_failed': _("creation failed"),
             'deletion_failed': _("deletion failed"), 'migration_failed': _("migration failed"),
             'restore_failed': _("restore failed"), 'resume_failed': _("resume failed"),
             'start_failed': _("start failed"), 'stop_failed': _("stop failed"), 'suspend_failed': _("suspend failed")}
# A VM's history entry (KeyVRM's own actions on it)
HISTORY_STATUSES = {'succeeded': _("succeeded"), 'success': _("succeeded"), 'failed': _("failed"),
                    'error': _("error")}
# Nova's compute service of a host
SERVICE_STATES = {'up': _("up"), 'down': _("down")}
SERVICE_STATUSES = {'enabled': _("enabled"), 'disabled': _("disabled")}

# The template filter's names of the tables above ({{ event.status|keyvrm_label:"event_status" }})
BY_NAME = {'event_kind': EVENT_KINDS, 'outcome_kind': OUTCOME_KINDS, 'event_status': EVENT_STATUSES,
           'event_state': EVENT_STATES, 'recommendation_status': RECOMMENDATION_STATUSES,
           'recommendation_action': RECOMMENDATION_ACTIONS, 'operation_kind': OPERATION_KINDS,
           'host_state': HOST_STATES, 'cycle_status': CYCLE_STATUSES, 'vm_state': VM_STATES}


def label(labels, value):
    """The label of ``value`` in ``labels``, or ``value`` as the API gave it."""
    return labels.get(value, value)


def choices(labels):
    """``labels`` as Horizon's ``display_choices`` of a column: ((API value, label), ...)."""
    return tuple(labels.items())


def reason_heading(code):
    """The short heading of a reason code in the user's language; the code itself when it has none."""
    heading = reason_codes.HEADINGS.get(code)
    return gettext(heading) if heading else code
