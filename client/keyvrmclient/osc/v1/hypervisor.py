"""`openstack keyvrm hypervisor list|show|drain|restore`."""

from cliff import columns
from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient import states

LIST_COLUMNS = ("host", "state", "state_since", "reason", "aggregates", "event_id")
# KeyVRM's own state and fencing record first, then Nova's view of the host as the newest snapshot saw it
SHOW_FIELDS = ("host", "state", "state_since", "reason", "event_id", "fenced_at", "fencing", "service", "seen_at",
               "availability_zone", "aggregates", "snapshot_id", "restorable")


class FencingColumn(columns.FormattableColumn):
    """KeyVRM's fencing record, one step a line: ``nova_force_down confirmed 10:00:01Z-10:00:02Z: message``.

    A server below API 1.12 names the fencer (no method, no outcome) and gives POSIX times.
    """

    def human_readable(self):
        lines = []
        for step in self._value or ():
            outcome = step.get("outcome") or ("confirmed" if step.get("confirmed") else "failed")
            lines.append("%s %s %s-%s: %s" % (step.get("method") or step.get("fencer"), outcome,
                                              step.get("started_at"), step.get("finished_at"), step.get("message")))
        return "\n".join(lines)

    def machine_readable(self):
        return list(self._value or ())


class ListHypervisors(command.Lister):
    """List hypervisors with KeyVRM's state of each, since when and why."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--state", choices=states.HYPERVISOR_STATES, help="Only hosts in this KeyVRM state.")
        parser.add_argument("--aggregate", metavar="<aggregate>", help="Only hosts of this aggregate.")
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_hypervisors, state=parsed_args.state,
                            aggregate=parsed_args.aggregate, limit=parsed_args.limit, marker=parsed_args.marker)
        return common.rows(items, LIST_COLUMNS)


class ShowHypervisor(common.ShowById):
    """Show a hypervisor's KeyVRM state and fencing record, then its compute service as Nova showed it.

    ``service`` is the newest snapshot's view (``seen_at``, from API 1.12 inside it too):
    right after a fence it may still read up and enabled; ``fenced_at`` and ``fencing``
    are KeyVRM's own record of the fence (one step per method, with its outcome).
    """

    argument, metavar, method = "name", "<hypervisor>", "get_hypervisor"

    def take_action(self, parsed_args):
        item = self._fetch(parsed_args)
        names, values = common.show(item, [name for name in SHOW_FIELDS if name in item]
                                    + sorted(set(item) - set(SHOW_FIELDS)))
        return names, tuple(FencingColumn(item["fencing"]) if name == "fencing" else value
                            for name, value in zip(names, values))


class DrainHypervisor(command.ShowOne):
    """Drain a host for maintenance: its compute service disabled, its VMs live-migrated away (admin, API 1.8).

    The host is ``draining`` until its moves end, then ``maintenance`` when empty, else
    ``drain_incomplete`` (the reason names the VMs left; the drain event says why each
    stayed). ``hypervisor restore`` returns it to service and cancels what has not started.
    With ``--allow-cold`` (API 1.11) the VMs a live migration cannot move are cold-migrated:
    stopped ones, and running ones whose live migration failed (powered off for the move).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<hypervisor>")
        parser.add_argument("--reason", required=True, metavar="<text>",
                            help="Why (e.g. the maintenance ticket); the compute service is disabled with it.")
        parser.add_argument("--allow-cold", action="store_true",
                            help="Cold-migrate (Nova's migrate, then confirm) the VMs a live migration cannot move:"
                                 " stopped VMs, and running VMs whose live migration failed, which are powered off"
                                 " for their move. Off by default: they stay and are named (API 1.11).")
        return parser

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).drain_hypervisor, parsed_args.name, parsed_args.reason,
                                       allow_cold=parsed_args.allow_cold))


class RestoreHypervisor(command.ShowOne):
    """Return a fenced, maintenance, error or drained host to service: the engine unforces and enables it (admin only).

    A draining host's moves that have not started are cancelled. With ``--failback`` (API
    1.8) the VMs KeyVRM moved off it (drain, HA evacuation) are then planned back to it:
    recommendations to run, or run at once where the aggregate's failback is auto.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<hypervisor>")
        parser.add_argument("--failback", action="store_true",
                            help="Once it is back, bring back the VMs KeyVRM moved off it (API 1.8).")
        return parser

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).restore_hypervisor, parsed_args.name,
                                       failback=parsed_args.failback))
