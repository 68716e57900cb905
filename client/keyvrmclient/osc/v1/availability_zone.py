"""`openstack keyvrm az list`."""

from osc_lib.command import command

from keyvrmclient.osc.v1 import common


class ListAvailabilityZones(command.Lister):
    """List availability zones with their aggregate counts."""

    def take_action(self, parsed_args):
        zones = common.call(common.client(self).list_availability_zones)
        return common.rows(zones, ("name", "aggregate_count"))
