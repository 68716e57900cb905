"""Horizon's marker paging and server-side filters over KeyVRM's lists: one API page per table, both ways.

A table mixes in ``PagedTable`` (Next/Prev links that keep the page's other query
parameters, e.g. the chosen zone or another table's page) and may declare a
``ServerFilter`` (Horizon's filter box, kept in the session, passed to the API). A view
mixes in ``PagedView`` and reads each table's page with ``self.page(table_class, fetch)``:
``fetch(limit, marker, backwards)`` asks the API for "Items Per Page" of the user's
settings plus one (the one more says there is a next page); a Prev marker asks for the
items before it in the reverse order, shown in the table's order.
"""

import dataclasses
import datetime

from django import shortcuts
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from horizon import tables
from horizon.utils import functions as utils


@dataclasses.dataclass(frozen=True)
class Page:
    """One page of a list, in the table's order, and whether there are pages after and before it."""

    items: list
    has_more: bool
    has_prev: bool


def page_of(fetch, page_size, marker=None, backwards=False):
    """The page ``fetch(limit, marker, backwards)`` gives for ``page_size`` rows after (or before) ``marker``.

    ``fetch`` returns the items in the order it reads them: after ``marker`` in the table's
    order, or, ``backwards``, before it from the nearest on (the API's reversed ``sort_dir``).
    """
    items = list(fetch(page_size + 1, marker, backwards))
    beyond = len(items) > page_size
    items = items[:page_size]
    if backwards:
        items.reverse()
        return Page(items, has_more=True, has_prev=beyond)
    return Page(items, has_more=beyond, has_prev=marker is not None)


def reversed_dir(sort_dir):
    """The API's ``sort_dir`` that reads the other way."""
    return 'asc' if sort_dir == 'desc' else 'desc'


def requested_marker(request, table_class):
    """(marker, backwards) the request asks of ``table_class``: its Next marker, else its Prev one, else none."""
    meta = table_class._meta
    before = request.GET.get(meta.prev_pagination_param)
    if before:
        return before, True
    return request.GET.get(meta.pagination_param) or None, False


def page_size(request):
    """Items Per Page of the user's Horizon settings (``API_RESULT_PAGE_SIZE``)."""
    return int(utils.get_page_size(request))


class PagedTable(object):
    """DataTable mixin: Next and Prev links that keep the page's other query parameters."""

    def _query_with(self, param, datum):
        query = self.request.GET.copy()
        for name in (self._meta.pagination_param, self._meta.prev_pagination_param, 'action', 'table', 'obj_id'):
            query.pop(name, None)
        query[param] = self.get_object_id(datum)
        return query.urlencode()

    def get_pagination_string(self):
        return self._query_with(self._meta.pagination_param, self.data[-1]) if self.data else ''

    def get_prev_pagination_string(self):
        return self._query_with(self._meta.prev_pagination_param, self.data[0]) if self.data else ''


class FilterValueError(ValueError):
    """A filter value the API would refuse; its text says what is expected."""


def since_value(text):
    """The UTC RFC 3339 time of ``text``, a date or a date and time in the user's time zone (2026-12-04 10:00)."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace(' ', 'T', 1))
    except ValueError:
        raise FilterValueError(_("Since: expected a date or a date and time, e.g. 2026-12-04 10:00.")) from None
    if moment.tzinfo is None:
        moment = timezone.make_aware(moment, timezone.get_current_timezone())
    return moment.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def one_of(label, choices, labels=None):
    """A converter of typed text to the one of ``choices`` it names, whatever its case (``ha`` -> ``HA``).

    With ``labels`` ({choice: label}) a choice's label in the user's language names it too
    (``завершено`` -> ``completed``).
    """
    def value(text):
        typed = text.strip().lower()
        for choice in choices:
            if typed in (choice.lower(), str((labels or {}).get(choice, choice)).lower()):
                return choice
        raise FilterValueError(_("%(label)s: expected one of %(choices)s.")
                               % {'label': label, 'choices': ', '.join(choices)})
    return value


def yes_no_value(text):
    """True or False of yes/no, true/false, 1/0 (as typed in a filter box)."""
    lowered = text.strip().lower()
    if lowered in ('yes', 'true', '1', 'y', str(_("Yes")).lower()):
        return True
    if lowered in ('no', 'false', '0', 'n', str(_("No")).lower()):
        return False
    raise FilterValueError(_("Locked: expected yes or no."))


class ServerFilter(tables.FilterAction):
    """Horizon's server-side filter box: the chosen field and text go to the API (``api_filters``).

    ``filter_choices`` as Horizon's: (API parameter, label, True); ``values`` turns the
    typed text of a field into what the API takes (``FilterValueError`` if it cannot).
    """

    filter_type = 'server'
    values = {}

    def api_filters(self, table):
        """{API parameter: value} of the filter the user chose (Horizon keeps it in the session); {} for none."""
        field, text = table.get_filter_field(), table.get_filter_string().strip()
        if not field or not text or not self.is_api_filter(field):
            return {}
        convert = self.values.get(field, lambda typed: typed.strip())
        return {field: convert(text)}


def linked_filter_redirect(request, table):
    """A link's filter (``?aggregate=agg-a``) made the table's server filter: a redirect to the page without it.

    Other pages link to a filtered list with the filter's API parameter in the query; it is
    stored as if typed in the table's filter box (so the box shows it and clearing it shows
    all) and the browser goes to the first page. None when the query names no filter field.
    """
    action = table._meta._filter_action
    if action is None or action.filter_type != 'server':
        return None
    fields = [choice[0] for choice in action.filter_choices]
    given = [field for field in fields if request.GET.get(field)]
    if not given:
        return None
    param = action.get_param_name()
    request.session[param] = request.GET[given[0]]
    request.session[param + '_field'] = given[0]
    query = request.GET.copy()
    for name in fields + [table._meta.pagination_param, table._meta.prev_pagination_param]:
        query.pop(name, None)
    return shortcuts.redirect(request.path + ('?' + query.urlencode() if query else ''))


class PagedView(object):
    """View mixin: ``page(table_class, fetch)`` reads one page of a table; Horizon then asks has_more/has_prev."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pages = {}

    def page(self, table_class, fetch):
        """The rows of ``table_class``'s page the request asks for (one API call: ``fetch``)."""
        marker, backwards = requested_marker(self.request, table_class)
        found = page_of(fetch, page_size(self.request), marker, backwards)
        self._pages[table_class._meta.name] = found
        return found.items

    def has_more_data(self, table):
        page = self._pages.get(table.name)
        return bool(page and page.has_more)

    def has_prev_data(self, table):
        page = self._pages.get(table.name)
        return bool(page and page.has_prev)
