"""Where an API error goes on a form, and in what words: on the field the API named, with the field's label.

The API's detail is English and, for a value its schema refuses, in jsonschema's wording
(``nova_filters.1: 'NoSuchFilter' is not one of ['AggregateImagePropertiesIsolation', ...]``).
The form says the same in the user's language, naming the field by its label
(``Nova filters: 'NoSuchFilter' is not a value KeyVRM accepts``); a refusal in other words
keeps the API's text after the label.
"""

import re

from django.utils.translation import gettext_lazy as _
from horizon import messages

from keyvrm_dashboard.api import keyvrm

_PART = re.compile(r"[./\[\]]+")
# jsonschema's wordings of a refused value, each as the panels say it
_SCHEMA_WORDING = (
    (re.compile(r"^(?P<value>.+) is not one of \[.*\]$", re.S), _("%(value)s is not a value KeyVRM accepts")),
    (re.compile(r"^(?P<value>.+) is less than the minimum of (?P<limit>\S+)$"), _("at least %(limit)s")),
    (re.compile(r"^(?P<value>.+) is greater than the maximum of (?P<limit>\S+)$"), _("at most %(limit)s")),
    (re.compile(r"^(?P<value>.+) is not of type '(?P<type>\w+)'$"), _("%(value)s is not a valid value")),
    (re.compile(r"^(?P<value>.+) is too long$", re.S), _("too long")),
    (re.compile(r"^(?P<value>.+) is too short$|^(?P<empty>.+) should be non-empty$", re.S), _("must not be empty")),
    (re.compile(r"^(?P<value>.+) has non-unique elements$", re.S), _("a value is listed twice")),
)


def form_field_of(api_field, form_fields):
    """The form field for the API's ``field``, or None (then the error goes on the whole form).

    ``lb_weights.cpu`` -> ``lb_weight_cpu``; ``nova_filters/0`` -> ``nova_filters``.
    """
    if not api_field:
        return None
    parts = [part for part in _PART.split(api_field) if part]
    candidates = [api_field, '_'.join(parts)]
    if len(parts) >= 2 and parts[0] in ('lb_weights', 'lb_ceilings'):
        candidates.append('%s_%s' % (parts[0][:-1], parts[1]))
    candidates.append(parts[0])
    for name in candidates:
        if name in form_fields:
            return name
    return None


def problem_text(detail, api_field=None):
    """What the API refused, in the user's language where the wording is jsonschema's; else the API's text.

    ``detail`` without its leading ``<field>: `` (the message names the field by its label).
    """
    if api_field and detail.startswith(api_field + ': '):
        detail = detail[len(api_field) + 2:]
    for wording, said in _SCHEMA_WORDING:
        found = wording.match(detail)
        if found:
            return said % {name: value for name, value in found.groupdict().items() if value is not None}
    return detail


def put_on_form(form, error):
    """Show a ClientError on the named field of ``form`` (or as a form error), named by the field's label.

    Returns False for handle().
    """
    field = form_field_of(error.field, form.fields)
    detail = error.detail or str(error)
    if field is None and not error.field:
        form.add_error(None, detail)
        return False
    name = form.fields[field].label if field else error.field
    form.add_error(field, _("%(field)s: %(problem)s") % {'field': name, 'problem': problem_text(detail, error.field)})
    return False


def called_showing_detail(request, call, *args):
    """``call(request, *args)``; an API refusal shows its detail as an error message, then re-raises.

    For table actions: Horizon's own message says only *that* the action failed.
    """
    try:
        return call(request, *args)
    except keyvrm.ClientError as error:
        messages.error(request, error.detail or str(error))
        raise
