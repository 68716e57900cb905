"""`openstack keyvrm config show|set`: the global business config."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common


def _names(text):
    return [name.strip() for name in text.split(",") if name.strip()]


# option -> (API field, type, help)
FIELDS = (
    ("enabled", common.parse_bool, "KeyVRM on (true/false)"),
    ("period", int, "Cycle period, s"),
    ("nova_filters", _names, "Comma-separated Nova filters to emulate (empty: none)"),
    ("ha_fence_ceph", common.parse_bool, "Fence with Ceph blocklist"),
    ("ha_fence_bmc", common.parse_bool, "Fence with the BMC (IPMI/Redfish)"),
    ("ha_fence_nova", common.parse_bool, "Fence with Nova force-down"),
    ("ha_fence_interfaces", _names, "Comma-separated interfaces whose down state makes a host unsafe"),
    ("ha_power_check_timeout", int, "s to wait for BMC power-off"),
    ("ha_vm_reset_state_timeout", int, "Stored, no effect in this version"),
    ("ha_no_evacuate_key", str, "Server metadata key for no_evac"),
    ("lb_no_migrate_key", str, "Server metadata key for no_migr"),
    ("executor_max_attempts", int, "Attempts per recommendation"),
    ("executor_max_repeated_errors", int, "Same error in a row that ends a recommendation"),
    ("executor_manual_action_timeout", int, "Minutes a manual recommendation waits"),
    ("lb_recommendations_auto_run", common.parse_bool, "LB recommendations run by themselves"),
)


class ShowConfig(command.ShowOne):
    """Show the global business config."""

    def take_action(self, parsed_args):
        return common.show(common.call(common.client(self).get_config))


class SetConfig(command.ShowOne):
    """Change global business config fields (all or nothing; each change is audited)."""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        for field, kind, text in FIELDS:
            parser.add_argument("--" + field.replace("_", "-"), dest=field, type=kind, metavar="<value>",
                                help=text)
        return parser

    def take_action(self, parsed_args):
        changes = {f: getattr(parsed_args, f) for f, _, _ in FIELDS if getattr(parsed_args, f) is not None}
        if not changes:
            raise common.exceptions.CommandError("nothing to change: give at least one option")
        return common.show(common.call(common.client(self).update_config, **changes))
