"""`openstack keyvrm event list|show`."""

from osc_lib.cli import format_columns
from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient.osc.v1 import reasons
from keyvrmclient import states
from keyvrmclient import v1

LIST_COLUMNS = ("id", "aggregate_name", "kind", "marker", "status", "state", "reason", "created_at")
# The no_target entries a table shows, and the (host, check) items per entry; -f json gives all.
NO_TARGET_LINES = 10
NO_TARGET_HOSTS = 5


class ListEvents(command.Lister):
    """List events, newest first, with filters."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--aggregate", metavar="<name>")
        parser.add_argument("--kind", choices=states.EVENT_KINDS)
        parser.add_argument("--status", choices=states.EVENT_STATUSES)
        parser.add_argument("--state", choices=states.EVENT_STATES)
        parser.add_argument("--sort-key", metavar="<field>")
        parser.add_argument("--sort-dir", choices=("asc", "desc"))
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        a = parsed_args
        client = common.client(self)
        items = common.call(client.list_events, limit=a.limit, marker=a.marker, aggregate=a.aggregate,
                            kind=a.kind, status=a.status, state=a.state, sort_key=a.sort_key, sort_dir=a.sort_dir)
        as_list = v1.version_tuple(client.api_version) >= v1.version_tuple(v1.REASON_LIST)
        columns = tuple("reasons" if c == "reason" and as_list else c for c in LIST_COLUMNS)
        return columns, [tuple(reasons.reasons_cell(item, summarize=True) if column in ("reason", "reasons")
                               else common.cell(item.get(column)) for column in columns) for item in items]


class NoTargetColumn(format_columns.ListColumn):
    """An event's ``no_target`` entries, one line each: what found no target, then each rejected host.

    ``vm X on cmp-2: cmp-3 ServerGroupAntiAffinityFilter, cmp-4 ram_depleted`` (HA);
    ``overloaded cmp-5: cmp-6 lb_target_max_load (3 VMs), ...`` (LB). A line names at
    most ``NO_TARGET_HOSTS`` rejected hosts and the table at most ``NO_TARGET_LINES``
    entries, each followed by ``(+N more)`` counting the rest (the API's own cap included).
    json/yaml output keeps the entries as the API gives them.
    """

    def human_readable(self):
        entries = list(self._value or ())
        lines = [_no_target_line(entry) for entry in entries[:NO_TARGET_LINES]]
        if len(entries) > NO_TARGET_LINES:
            lines.append("(+%d more VMs or hosts without a target)" % (len(entries) - NO_TARGET_LINES))
        return "\n".join(lines)

    def machine_readable(self):
        return list(self._value or ())


def _no_target_line(entry):
    what = ("vm %s on %s" % (entry["vm_id"], entry["source_host"]) if entry.get("vm_id")
            else "overloaded %s" % entry["source_host"])
    return "%s: %s" % (what, rejections(entry))


def rejections(entry):
    """A no_target entry's rejected hosts in one line (``cmp-3 ram_depleted, ...``), else its message."""
    rejected = entry.get("rejected_hosts") or ()
    hosts = ["%s %s%s" % (h["host"], h["check"], "" if entry.get("vm_id") else " (%d VM%s)" % (
        h["vms"], "" if h["vms"] == 1 else "s")) for h in rejected[:NO_TARGET_HOSTS]]
    more = (entry.get("more_hosts") or 0) + max(0, len(rejected) - NO_TARGET_HOSTS)
    if more:
        hosts.append("(+%d more)" % more)
    return ", ".join(hosts) or entry.get("message") or entry.get("code")


class ShowEvent(common.ShowById):
    """Show an event with its reasons, recommendation counts and no-target entries.

    ``reasons``: grouped by code with counts. ``no_target``: per VM (HA) or overloaded
    host (LB) without a target, the check that rejected each candidate host.
    """

    argument, metavar, method = "event_id", "<event>", "get_event"

    def take_action(self, parsed_args):
        event = self._fetch(parsed_args)
        names, values = common.show(event)
        special = {"no_target": NoTargetColumn(event.get("no_target")), "reasons": reasons.reasons_cell(event)}
        return names, tuple(special.get(name, value) for name, value in zip(names, values))
