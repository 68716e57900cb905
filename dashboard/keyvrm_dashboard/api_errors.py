"""Where an API error goes on a form: on the field the API named, else at the top of the form."""

import re

from horizon import messages

from keyvrm_dashboard.api import keyvrm

_PART = re.compile(r"[./\[\]]+")


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


def put_on_form(form, error):
    """Show a ClientError on the named field of ``form`` (or as a form error); returns False for handle()."""
    field = form_field_of(error.field, form.fields)
    form.add_error(field, error.detail or str(error))
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
