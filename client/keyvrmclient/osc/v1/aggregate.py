"""`openstack keyvrm aggregate list|show|set|load|what-if|failover`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common
from keyvrmclient.osc.v1 import event
from keyvrmclient.osc.v1 import reasons

LIST_COLUMNS = ("name", "availability_zone", "marker", "no_op_mode", "no_op_reason", "last_event_state", "failover")
LOAD_COLUMNS = ("host", "cpu", "ram", "net", "syn_score", "overloaded", "causes", "missing", "vm_count")
MOVE_COLUMNS = ("step", "tier", "vm_id", "name", "source", "target", "evacuate_order", "round")
STAY_COLUMNS = ("vm_id", "host", "code", "why")
HOST_COLUMNS = ("host", "fenced", "end_state", "vm_count", "moves", "stay")


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
    """List aggregates with marker, NOOP, the state of their last event, their failover capacity and LB level.

    ``failover`` is ``tolerance/reserve`` as the last cycle found it (searched up to the
    reserve), ``SHORT`` when below it; empty for an aggregate not analysed. ``lb_level``
    (a server of API 1.6) is the LB dial, with ``*`` when a threshold was overridden after
    the level was chosen (``aggregate show`` names it in ``lb_level_overridden``).
    """

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
        columns = LIST_COLUMNS + (("lb_level",) if any("lb_level" in item for item in items) else ())
        return common.rows([dict(item, failover=failover_cell(item), lb_level=lb_level_cell(item))
                            for item in items], columns)


def lb_level_cell(aggregate):
    """The LB level, ``3*`` when a threshold differs from what it set; None from a server below API 1.6."""
    level = aggregate.get("lb_level")
    if level is None:
        return None
    return "%d*" % level if aggregate.get("lb_level_overridden") else str(level)


def failover_cell(aggregate):
    """``tolerance/reserve`` the last cycle found, ``SHORT`` when below; empty when not analysed (or API < 1.4)."""
    tolerance = aggregate.get("failover_tolerance")
    if tolerance is None:
        return ""
    cell = "%d/%d" % (tolerance, aggregate["ha_failover_reserve"])
    return cell + " SHORT" if aggregate.get("failover_short") else cell


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
    """Change an aggregate's marker, NOOP mode (turning it on needs a reason), storage mode, LB level and settings."""

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
        parser.add_argument("--lb-level", type=int, metavar="<1-5>",
                            help="The LB dial (API 1.6): 1 relieves only hosts at a ceiling, 2 also a "
                                 "syn_score above 90, 3 (default) hot spots above 80, 4 earlier (70, lower "
                                 "ceilings), 5 also evens hosts out around the aggregate's mean. It writes "
                                 "the level's threshold, target limit and ceilings, except those given with "
                                 "it; one changed later shows in lb_level_overridden.")
        parser.add_argument("--lb-persistence", type=int, metavar="<runs>",
                            help="How many consecutive LB runs must find a host overloaded before LB moves "
                                 "VMs off it (API 1.7; 1-10, default 1: the first run acts, on loads averaged "
                                 "over the metrics window). Until then the run says lb_imbalance_pending.")
        parser.add_argument("--lb-min-gain", type=float, metavar="<points>",
                            help="The least a move must narrow the gap between its source and its target on "
                                 "each measure it relieves (API 1.7; 0-50 points, default 2).")
        parser.add_argument("--failback", choices=("off", "recommend", "auto"),
                            help="After one of its hosts is returned to service, the VMs KeyVRM moved off it: "
                                 "off (stay; a restore --failback still plans them), recommend (manual "
                                 "recommendations back, the default) or auto (moved back at once). API 1.8.")
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
                                                        "ha_failover_reserve", "lb_level", "lb_persistence",
                                                        "lb_min_gain", "failback")
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


def staying(host):
    """Rows (vm_id, host, code, why) of a failed host's VMs that would stay: without a target, then skipped.

    ``why`` of a VM without a target lists the check that rejected each candidate host;
    of a skipped VM (or of the whole host) it is the reason's message.
    """
    rows = [(e["vm_id"], e["source_host"], e["code"], event.rejections(e)) for e in host["no_target"]]
    return rows + [(e["vm_id"], e["host"], e["code"], e["message"]) for e in host["skipped"]]


class WhatIfAggregate(command.Lister):
    """Show the plan HA would make now if the given hosts died: its moves, the VMs that would stay, end states.

    Nothing changes: no event, no recommendation, no host state. Tables: the moves in the
    order the executor would ask Nova, the VMs that would stay on a failed host with why,
    and each failed host's end state (maintenance when every VM on it moves, else error; ok
    when HA would not fence it), then notes on the plan as a whole (the mass-failure guard).
    ``-f json`` / ``-f yaml`` give the API's answer as it is.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<aggregate>")
        parser.add_argument("--fail", metavar="<host>", action="append", required=True,
                            help="A host of the aggregate supposed dead (repeatable).")
        return parser

    def take_action(self, parsed_args):
        self.what_if = common.call(common.client(self).what_if, parsed_args.name, parsed_args.fail)
        moves = sorted((m for h in self.what_if["hosts"] for m in h["moves"]), key=lambda m: m["step"])
        return common.rows(moves, MOVE_COLUMNS)

    def produce_output(self, parsed_args, column_names, data):
        found = self.what_if
        if common.emit_structured(self, found, parsed_args):
            return 0
        super().produce_output(parsed_args, column_names, data)
        stay = [row for host in found["hosts"] for row in staying(host)]
        if stay:
            self.app.stdout.write("\nVMs that would stay on a failed host:\n")
            self.formatter.emit_list(STAY_COLUMNS, stay, self.app.stdout, parsed_args)
        self.app.stdout.write("\nFailed hosts:\n")
        hosts = [(h["host"], h["fenced"], h["end_state"], h["vm_count"], len(h["moves"]), len(staying(h)))
                 for h in found["hosts"]]
        self.formatter.emit_list(HOST_COLUMNS, hosts, self.app.stdout, parsed_args)
        for note in found["notes"]:  # e.g. the mass-failure guard: HA would fence none of them
            self.app.stdout.write("\n%s: %s" % (note["code"], note["message"]))
        if found["notes"]:
            self.app.stdout.write("\n")
        if not found["ha_runs"]:
            self.app.stdout.write("\n" + common.ha_not_run_line(found))
        return 0


AT_RISK_COLUMNS = ("Failed hosts", "VM", "Code", "Rejected by")
DOMAIN_AT_RISK_COLUMNS = ("Failed domain", "VM", "Code", "Rejected by")


class FailoverAggregate(command.Lister):
    """Show whether the aggregate can absorb host failures now: its tolerance against its reserve.

    The tolerance is how many hosts may fail together with every evacuable VM placed
    (planned now with HA's own planner, up to ``[ha] failover_max_k``). The table lists,
    for each host (or pair) whose failure would leave VMs without a target, those VMs and
    the check that rejected each candidate host. A server of API 1.5 also plans each
    failure domain (rack) failing as a whole: a line counts them, and a second table lists
    the VMs a domain's failure would leave without a target. ``-f json`` / ``-f yaml`` give
    the API's answer as it is.
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument("name", metavar="<aggregate>")
        return parser

    def take_action(self, parsed_args):
        self.failover = common.call(common.client(self).aggregate_failover, parsed_args.name)
        return AT_RISK_COLUMNS, [(" ".join(risk["hosts"]), e["vm_id"], e["code"], event.rejections(e))
                                 for risk in self.failover["at_risk"] for e in risk["vms_without_target"]]

    def produce_output(self, parsed_args, column_names, data):
        found = self.failover
        if common.emit_structured(self, found, parsed_args):
            return 0
        bound = "" if found["exact"] else " (an upper bound: k = 2 searched among the worst hosts' pairs)"
        verdict = "BELOW its reserve" if found["below_reserve"] else "within its reserve"
        self.app.stdout.write("%s tolerates %d host failure(s) of %d hosts%s; reserve %d: %s (snapshot %d)\n"
                              % (found["aggregate"], found["tolerance"], found["hosts"], bound,
                                 found["reserve"], verdict, found["snapshot_id"]))
        if data:
            super().produce_output(parsed_args, column_names, data)
        if "failure_domains" in found:
            self._domains_output(parsed_args, found)
        self.app.stdout.write(common.ha_not_run_line(found))
        return 0

    def _domains_output(self, parsed_args, found):
        """The failure domains' line and the VMs each domain at risk would leave behind (API 1.5)."""
        domains = found["failure_domains"]
        if found["failure_domain_error"]:
            self.app.stdout.write("failure domains not analysed: %s\n" % found["failure_domain_error"])
            return
        if not domains:
            return
        at_risk = [d for d in domains if d["vms_without_target"]]
        self.app.stdout.write("\n%d failure domain(s), %d whose failure leaves VMs without a target%s\n" % (
            len(domains), len(at_risk), ":" if at_risk else ""))
        if at_risk:
            super().produce_output(parsed_args, DOMAIN_AT_RISK_COLUMNS, [
                (d["name"], e["vm_id"], e["code"], event.rejections(e))
                for d in at_risk for e in d["vms_without_target"]])
