"""`openstack keyvrm aggregate list|show|set|load`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient.osc.v1 import reasons

LIST_COLUMNS = ("name", "availability_zone", "marker", "no_op_mode", "no_op_reason", "last_event_state")
LOAD_COLUMNS = ("host", "cpu", "ram", "net", "syn_score", "overloaded", "causes", "missing", "vm_count")


def _weight(text):
    key, _, value = text.partition("=")
    if not key or not value:
        raise ValueError("expected KEY=WEIGHT")
    return key, float(value)


def _ceiling(text):
    key, _, value = text.partition("=")
    if not key or not value:
        raise ValueError("expected KEY=PCT or KEY=none")
    return key, None if value.strip().lower() == "none" else float(value)


class ListAggregates(command.Lister):
    """List aggregates with marker, NOOP and the state of their last event."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("--availability-zone", metavar="<az>", help="Only this AZ's aggregates.")
        parser.add_argument("--include-deleted", action="store_true", help="Also aggregates Nova no longer has.")
        common.add_paging(parser)
        return parser

    def take_action(self, parsed_args):
        items = common.call(common.client(self).list_aggregates, availability_zone=parsed_args.availability_zone,
                            include_deleted=parsed_args.include_deleted or None, limit=parsed_args.limit,
                            marker=parsed_args.marker)
        return common.rows(items, LIST_COLUMNS)


class ShowAggregate(common.ShowById):
    """Show an aggregate's config with its last and current event (their reasons in one line each)."""

    argument, metavar, method = "name", "<aggregate>", "get_aggregate"

    def take_action(self, parsed_args):
        aggregate = self._fetch(parsed_args)
        names, values = common.show(aggregate)
        columns = {"last_event": reasons.EventColumn, "current_event": reasons.EventColumn,
                   "latest_outcome": reasons.LatestOutcomeColumn}
        return names, tuple(columns[name](aggregate[name]) if name in columns else value
                            for name, value in zip(names, values))


class ShowAggregateLoad(command.Lister):
    """Show each hypervisor's load (cpu, ram, net, syn_score in %) and why it is overloaded, newest snapshot."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<aggregate>")
        return parser

    def take_action(self, parsed_args):
        load = common.call(common.client(self).aggregate_load, parsed_args.name)
        if load["snapshot_id"] is None:
            self.app.stderr.write("no snapshot yet: KeyVRM has not harvested this region\n")
        return common.rows(load["hosts"], LOAD_COLUMNS)


class SetAggregate(command.ShowOne):
    """Change an aggregate's marker, NOOP mode (a reason is required to turn it on), storage mode and LB settings."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<aggregate>")
        parser.add_argument("--marker", metavar="<HA|LB|HA+LB|''>", help="What KeyVRM does here (empty: nothing).")
        noop = parser.add_mutually_exclusive_group()
        noop.add_argument("--noop", dest="no_op_mode", action="store_true", default=None,
                          help="NOOP on: seen and counted, nothing done (needs --noop-reason).")
        noop.add_argument("--no-noop", dest="no_op_mode", action="store_false", help="NOOP off.")
        parser.add_argument("--noop-reason", dest="no_op_reason", metavar="<text>")
        parser.add_argument("--storage-mode", choices=("shared", "local", "none"),
                            help="Where image-backed VM disks live: shared (Ceph RBD, NFS: evacuation keeps "
                                 "them), local (evacuation would rebuild them from the image) or none "
                                 "(undeclared: HA does not run here).")
        parser.add_argument("--failover-reserve", dest="ha_failover_reserve", type=int, metavar="<hosts>",
                            help="HA aggregates: how many hosts may fail with every evacuable VM still "
                                 "finding a target (0-2; 0: no reserve). Below it, each cycle warns "
                                 "insufficient_failover_capacity.")
        parser.add_argument("--lb-period", type=int, metavar="<s>")
        parser.add_argument("--lb-overload-threshold", type=float, metavar="<pct>")
        parser.add_argument("--lb-target-max-load", type=float, metavar="<pct>")
        parser.add_argument("--lb-weight", type=_weight, action="append", metavar="<key=weight>",
                            help="Weight of cpu, ram, net or hugepages in syn_score (repeatable; weights "
                                 "not given keep their value).")
        parser.add_argument("--lb-ceiling", type=_ceiling, action="append", metavar="<key=pct|none>",
                            help="Ceiling of cpu, ram, net or hugepages in %%: a hypervisor with that resource "
                                 "at or above it is overloaded whatever its syn_score; none: no ceiling "
                                 "(repeatable; ceilings not given keep their value).")
        return parser

    def take_action(self, parsed_args):
        changes = {f: getattr(parsed_args, f) for f in ("marker", "no_op_mode", "no_op_reason", "lb_period",
                                                        "lb_overload_threshold", "lb_target_max_load",
                                                        "ha_failover_reserve")
                   if getattr(parsed_args, f) is not None}
        if parsed_args.storage_mode is not None:
            changes["storage_mode"] = None if parsed_args.storage_mode == "none" else parsed_args.storage_mode
        if parsed_args.lb_weight:
            changes["lb_weights"] = dict(parsed_args.lb_weight)
        if parsed_args.lb_ceiling:
            changes["lb_ceilings"] = dict(parsed_args.lb_ceiling)
        if not changes:
            raise common.exceptions.CommandError("nothing to change: give at least one option")
        return common.show(common.call(common.client(self).update_aggregate, parsed_args.name, **changes))
