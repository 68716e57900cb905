"""Times and durations of KeyVRM's API as the panels show them: relative, in the user's Horizon time zone.

The API serves times as RFC 3339 UTC strings (``2026-12-04T00:10:00.123456Z``) and a few
as POSIX seconds (a fencing step's start). Horizon's middleware activates the time zone
the user chose in Settings (``django_timezone`` in the session), so
``timezone.localtime`` here follows it. In templates::

    {% load keyvrm_time %}
    {{ event.created_at|keyvrm_time }}      <span title="2026-12-04 03:10:00 MSK">3 minutes ago</span>
    {{ event.created_at|keyvrm_exact_time }}    2026-12-04 03:10:00 MSK
    {{ history.duration_s|keyvrm_duration }}    1 min 5 s

and in a table column: ``tables.Column('created_at', filters=(keyvrm_time.time_html,))``.
Anything that is not a time (None, '', text that does not parse) shows as given, or '-'.
"""

import datetime

from django import template
from django.utils import dateformat
from django.utils import formats
from django.utils import html
from django.utils import timesince
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

register = template.Library()

EXACT_FORMAT = 'Y-m-d H:i:s T'  # Django's date format: 2026-12-04 03:10:05 MSK
NONE_SHOWN = '-'


def parse_time(value):
    """An aware UTC datetime of ``value`` (ISO 8601 text, POSIX seconds, or a datetime), or None.

    A naive time is UTC, as the API's are; text that is not a time is None.
    """
    if value is None or value == '' or isinstance(value, bool):
        return None
    if isinstance(value, datetime.datetime):
        moment = value
    elif isinstance(value, (int, float)):
        moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    else:
        try:
            moment = datetime.datetime.fromisoformat(str(value).strip())
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc)


def exact_time(value):
    """``value`` to the second in the user's time zone, with the zone: ``2026-12-04 03:10:05 MSK``; '' if none."""
    moment = parse_time(value)
    if moment is None:
        return ''
    return dateformat.format(timezone.localtime(moment), EXACT_FORMAT)


def relative_time(value, now=None):
    """``value`` from now in words: ``3 minutes ago``, ``in 2 hours``, ``just now``; '' if it is no time."""
    moment = parse_time(value)
    if moment is None:
        return ''
    now = now or timezone.now()
    if abs((now - moment).total_seconds()) < 60:
        return _("just now")
    if moment <= now:
        return _("%(delta)s ago") % {'delta': timesince.timesince(moment, now, depth=1)}
    return _("in %(delta)s") % {'delta': timesince.timeuntil(moment, now, depth=1)}


def time_html(value):
    """The relative time with the exact one on hover (``<span title=...>``); ``value`` as given if it is no time."""
    if parse_time(value) is None:
        return value if value not in (None, '') else NONE_SHOWN
    return html.format_html('<span class="keyvrm-time" title="{}" data-keyvrm-time="{}">{}</span>',
                            exact_time(value), parse_time(value).isoformat(), relative_time(value))


# the units of a duration, abbreviated as the user's language writes them
UNITS = {'d': pgettext_lazy("duration unit: days", "d"), 'h': pgettext_lazy("duration unit: hours", "h"),
         'min': pgettext_lazy("duration unit: minutes", "min"), 's': pgettext_lazy("duration unit: seconds", "s")}


def duration_text(seconds):
    """A duration rounded as an operator reads it: ``4.2 s``, ``42 s``, ``3 min 5 s``, ``2 h 10 min``, ``3 d 4 h``."""
    if seconds is None or seconds == '' or isinstance(seconds, bool):
        return NONE_SHOWN
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        return str(seconds)
    sign, seconds = ('-' if seconds < 0 else ''), abs(seconds)
    if seconds < 10:
        tenths = round(seconds, 1)
        return '%s%s %s' % (sign, formats.number_format(tenths, 0 if tenths == int(tenths) else 1), UNITS['s'])
    whole = int(round(seconds))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        parts = ((days, 'd'), (hours, 'h'))
    elif hours:
        parts = ((hours, 'h'), (minutes, 'min'))
    elif minutes:
        parts = ((minutes, 'min'), (secs, 's'))
    else:
        parts = ((secs, 's'),)
    return sign + ' '.join('%d %s' % (amount, UNITS[unit]) for amount, unit in parts if amount or unit == parts[0][1])


@register.filter(name='keyvrm_time')
def keyvrm_time(value):
    """Template filter: ``time_html``."""
    return time_html(value)


@register.filter(name='keyvrm_exact_time')
def keyvrm_exact_time(value):
    """Template filter: ``exact_time``, or '-' when ``value`` is no time."""
    return exact_time(value) or NONE_SHOWN


@register.filter(name='keyvrm_relative_time')
def keyvrm_relative_time(value):
    """Template filter: ``relative_time``, or '-' when ``value`` is no time."""
    return relative_time(value) or NONE_SHOWN


@register.filter(name='keyvrm_duration')
def keyvrm_duration(seconds):
    """Template filter: ``duration_text``."""
    return duration_text(seconds)
