"""A record's stored reasons as the requested microversion shows them: a list (1.1) or one line of text (1.0)."""

from keyvrm.api import microversion
from keyvrm.model import reason_list


def shown(record, version, empty_text=None):
    """``record`` (an event or cycle outcome dict with stored ``reasons``) with its reasons as ``version`` serves them.

    From 1.1: ``reasons``, the list of entries, and ``more_reasons``, per code how many
    the bound left out. Before: ``reason``, the list rendered as ``[code] message; ...``
    (``empty_text`` when there is none).
    """
    values = dict(record)
    listed = reason_list.ReasonList.from_json(values.pop("reasons"))
    if version < microversion.REASON_LIST:
        values["reason"] = listed.text() or empty_text
    else:
        values["reasons"] = [entry.to_json() for entry in listed.entries]
        values["more_reasons"] = listed.more()
    return values
