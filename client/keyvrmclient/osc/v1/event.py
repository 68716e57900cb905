"""`openstack keyvrm event list|show`."""

from osc_lib.cli import format_columns
from osc_lib.command import command

from keyvrmclient.osc.v1 import common

LIST_COLUMNS = ("id", "aggregate_name", "kind", "marker", "status", "state", "reason", "created_at")


class ListEvents(command.Lister):
    """List events, newest first, with filters."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--aggregate", metavar="<name>")
        parser.add_argument("--kind", choices=("HA", "LB"))
        parser.add_argument("--status", metavar="<status>")
        parser.add_argument("--state", choices=("healthy", "warning", "error"))
        parser.add_argument("--sort-key", metavar="<field>")
        parser.add_argument("--sort-dir", choices=("asc", "desc"))
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        a = parsed_args
        items = common.call(common.client(self).list_events, limit=a.limit, marker=a.marker, aggregate=a.aggregate,
                            kind=a.kind, status=a.status, state=a.state, sort_key=a.sort_key, sort_dir=a.sort_dir)
        return common.rows(items, LIST_COLUMNS)


class NoTargetColumn(format_columns.ListColumn):
    """An event's ``no_target`` entries, one line each: what found no target, then each rejected host.

    ``vm X on cmp-2: cmp-3 ServerGroupAntiAffinityFilter, cmp-4 ram_depleted`` (HA);
    ``overloaded cmp-5: cmp-6 lb_target_max_load (3 VMs), ...`` (LB); ``(+N more)`` when the
    API capped the list. json/yaml output keeps the entries as the API gives them.
    """

    def human_readable(self):
        return "\n".join(_no_target_line(entry) for entry in self._value or ())

    def machine_readable(self):
        return list(self._value or ())


def _no_target_line(entry):
    what = ("vm %s on %s" % (entry["vm_id"], entry["source_host"]) if entry.get("vm_id")
            else "overloaded %s" % entry["source_host"])
    hosts = ["%s %s%s" % (h["host"], h["check"], "" if entry.get("vm_id") else " (%d VM%s)" % (
        h["vms"], "" if h["vms"] == 1 else "s")) for h in entry.get("rejected_hosts") or ()]
    if entry.get("more_hosts"):
        hosts.append("(+%d more)" % entry["more_hosts"])
    return "%s: %s" % (what, ", ".join(hosts) or entry.get("message") or entry.get("code"))


class ShowEvent(common.ShowById):
    """Show an event with its reason, recommendation counts and no-target entries.

    ``no_target``: per VM (HA) or overloaded host (LB) without a target, the check that
    rejected each candidate host.
    """

    argument, metavar, method = "event_id", "<event>", "get_event"

    def take_action(self, parsed_args):
        event = self._fetch(parsed_args)
        names, values = common.show(event)
        return names, tuple(NoTargetColumn(event.get("no_target")) if name == "no_target" else value
                            for name, value in zip(names, values))
