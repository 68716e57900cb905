"""How the CLI shows why KeyVRM did or did not act: reasons grouped by code with counts, whatever the region's size.

From microversion 1.1 an event's or a cycle outcome's reasons are entries (``code``,
``message``, ``host``, ``vm_id``, ``details``), at most a bounded number per code, with
``more_reasons`` counting the rest per code. The table shows one group per code, in the
API's order (the most telling first): a code with one entry is one line, ``code:
message``; a code with more lists its entries under ``code (N):``, N counting every
entry, listed or not; an entry about the aggregate as a whole (no host, no VM) heads its
group instead. json and yaml output keep the API's list. A 1.0 server's ``reason`` text
is shown as it comes.
"""

from osc_lib.cli import format_columns

INDENT = "  "


def groups(reasons, more=None):
    """[(code, [entry, ...], how many of the code's entries were left out)], in the order the codes come."""
    by_code = {}
    for entry in reasons or ():
        by_code.setdefault(entry["code"], []).append(entry)
    more = dict(more or {})
    listed = [(code, entries, more.pop(code, 0)) for code, entries in by_code.items()]
    return listed + [(code, [], count) for code, count in more.items()]


def _about_aggregate(entry):
    return entry.get("host") is None and entry.get("vm_id") is None


def group_lines(code, entries, left_out):
    """The lines of one code's group (see the module docstring)."""
    total = len(entries) + left_out
    if total == 1 and entries:
        return ["%s: %s" % (code, entries[0]["message"])]
    head = [e for e in entries if _about_aggregate(e)][:1]
    lines = ["%s: %s" % (code, head[0]["message"])] if head else ["%s (%d):" % (code, total)]
    lines += [INDENT + e["message"] for e in entries if e not in head]
    if left_out:
        lines.append(INDENT + "(+%d more)" % left_out)
    return lines


def summary(reasons, more=None):
    """One line: each code with its number of entries, e.g. ``overloaded (301), no_target (40)``."""
    return ", ".join("%s (%d)" % (code, len(entries) + left_out) if len(entries) + left_out > 1 else code
                     for code, entries, left_out in groups(reasons, more))


class ReasonsColumn(format_columns.ListColumn):
    """An event's or outcome's ``reasons``: grouped lines for people, the API's list for json/yaml."""

    def __init__(self, value, more=None):
        super().__init__(value)
        self._more = more

    def human_readable(self):
        return "\n".join(line for code, entries, left_out in groups(self._value, self._more)
                         for line in group_lines(code, entries, left_out))

    def machine_readable(self):
        return list(self._value or ())


class ReasonsSummaryColumn(ReasonsColumn):
    """The same reasons in a list's cell: one line of codes with their counts."""

    def human_readable(self):
        return summary(self._value, self._more)


def reasons_cell(record, summarize=False):
    """The cell showing ``record``'s reasons: the 1.1 list as a column, or the 1.0 text as it is."""
    if "reasons" not in record:
        return record.get("reason")
    column = ReasonsSummaryColumn if summarize else ReasonsColumn
    return column(record["reasons"], record.get("more_reasons"))


def one_line(record):
    """``record``'s reasons in one line: its only reason (``code: message``), else the summary; 1.0 text as it is."""
    if "reasons" not in record:
        return record.get("reason") or ""
    listed = groups(record["reasons"], record.get("more_reasons"))
    if len(listed) == 1 and len(listed[0][1]) == 1 and not listed[0][2]:
        return group_lines(*listed[0])[0]
    return summary(record["reasons"], record.get("more_reasons"))


class EventColumn(format_columns.DictColumn):
    """An event embedded in another resource (an aggregate's last and current event): its reasons in one line."""

    def human_readable(self):
        if not self._value:
            return ""
        shown = {k: v for k, v in self._value.items() if k not in ("reasons", "more_reasons")}
        shown["reason"] = one_line(self._value)
        return format_columns.DictColumn(shown).human_readable()


class OutcomesColumn(format_columns.ListColumn):
    """A cycle's outcomes, one line each: ``LB agg-c: lb_too_early: LB on agg-c too early ...``."""

    def human_readable(self):
        return "\n".join("%s %s: %s" % (o["kind"], o["aggregate_name"], one_line(o) or o["reason_code"])
                         for o in self._value or ())

    def machine_readable(self):
        return list(self._value or ())


class LatestOutcomeColumn(format_columns.DictColumn):
    """An aggregate's latest outcome (API 1.2): its cycle, then one line per outcome and per event."""

    def human_readable(self):
        latest = self._value
        if not latest:
            return "no finished cycle has judged it yet"
        lines = ["cycle %s (%s, %s)" % (latest["cycle_id"], latest["cycle_status"], latest["finished_at"])]
        lines += ["%s: %s" % (o["kind"], one_line(o) or o["reason_code"]) for o in latest["outcomes"]]
        lines += ["%s event %s (%s, %s): %s" % (
            e["kind"], e["id"], e["status"], e.get("state") or "-", one_line(e) or e.get("reason_code") or "")
            for e in latest["events"]]
        return "\n".join(lines)

    def machine_readable(self):
        return self._value
