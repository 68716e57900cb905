"""JSON rendering of handler results: datetimes as RFC 3339 UTC strings."""

import datetime
import json


def _default(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value.isoformat() + "Z"
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError("cannot render %r as JSON" % (value,))


def dumps(body):
    """``body`` as compact JSON text."""
    return json.dumps(body, default=_default, sort_keys=True)
