"""Template filters showing an API value's label in the user's language (``labels``).

    {% load keyvrm_labels %}
    {{ event.status|keyvrm_label:"event_status" }}     recommendations generated
    {{ event.reason_code|keyvrm_reason_heading }}      No suitable target host
"""

from django import template

from keyvrm_dashboard import labels

register = template.Library()


@register.filter(name='keyvrm_label')
def keyvrm_label(value, kind):
    """The label of ``value`` in the table ``kind`` names (``labels.BY_NAME``); '' for no value."""
    if value in (None, ''):
        return ''
    return labels.label(labels.BY_NAME[kind], value)


@register.filter(name='keyvrm_reason_heading')
def keyvrm_reason_heading(code):
    """Template filter: ``labels.reason_heading``; '' for no code."""
    return labels.reason_heading(code) if code else ''
