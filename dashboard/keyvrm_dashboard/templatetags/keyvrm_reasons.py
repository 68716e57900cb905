"""The reasons component: an event's or a cycle outcome's reasons grouped by code (``reason_groups``), with actions.

    {% load keyvrm_reasons %}
    {% keyvrm_reasons event %}                      on the event page, the aggregate page's current event
    {% keyvrm_reasons outcome aggregate.name %}     a cycle outcome (the aggregate its Edit button opens)

Each code is one line: its heading in the user's language, the API's code, how many hosts
or VMs; its first items, the others behind "show all" (a ``<details>``: no request), the
count of those the API left out. An item whose host the guide returns to service has a
Return to service button, a line the aggregate's configuration fixes an Edit configuration
button: each only for a user whom KeyVRM's policy rule of that call allows (``access.allowed``,
as the panels' other buttons).
"""

from django import template
from django.urls import reverse

from keyvrm_dashboard import access
from keyvrm_dashboard import reason_groups

register = template.Library()


@register.inclusion_tag('keyvrm_dashboard/_reasons.html', takes_context=True)
def keyvrm_reasons(context, record, aggregate=None):
    """The component's context for ``record`` (event or outcome); ``aggregate``: its name when the record lacks it."""
    request = context.get('request')
    aggregate = record.get('aggregate_name') or aggregate
    edit_url = None
    if aggregate and request is not None and access.allowed(request, access.AGGREGATE_UPDATE):
        edit_url = reverse('horizon:admin:keyvrm_aggregates:edit', args=[aggregate])
    may_restore = request is not None and access.allowed(request, access.HYPERVISOR_RESTORE)
    return {'groups': reason_groups.groups_of(record), 'text': record.get('reason') or '',
            'may_restore': may_restore, 'edit_url': edit_url}
