"""`openstack keyvrm event show`: the no_target column reads as one line per VM or overloaded host."""

from keyvrmclient.osc.v1 import event

HA = {"vm_id": "vm-1", "source_host": "cmp-2", "code": "no_target", "message": "no target for vm-1: ...",
      "rejected_hosts": [{"host": "cmp-3", "check": "ServerGroupAntiAffinityFilter", "vms": 1},
                         {"host": "cmp-4", "check": "ram_depleted", "vms": 1}], "more_hosts": 0}
LB = {"vm_id": None, "source_host": "cmp-5", "code": "no_target", "message": "no target for overloaded cmp-5",
      "rejected_hosts": [{"host": "cmp-6", "check": "lb_target_max_load", "vms": 3},
                         {"host": "cmp-7", "check": "min_improvement", "vms": 1}], "more_hosts": 12}


def test_ha_and_lb_entries_read_as_one_line_each_with_the_capped_rest_counted():
    column = event.NoTargetColumn([HA, LB])
    assert column.human_readable().splitlines() == [
        "vm vm-1 on cmp-2: cmp-3 ServerGroupAntiAffinityFilter, cmp-4 ram_depleted",
        "overloaded cmp-5: cmp-6 lb_target_max_load (3 VMs), cmp-7 min_improvement (1 VM), (+12 more)"]
    assert column.machine_readable() == [HA, LB]


def test_an_entry_without_listed_hosts_shows_its_message_and_none_shows_nothing():
    no_online = dict(HA, code="no_online_hypervisor", message="no available online hypervisor for vm-1",
                     rejected_hosts=[])
    assert event.NoTargetColumn([no_online]).human_readable() == (
        "vm vm-1 on cmp-2: no available online hypervisor for vm-1")
    assert event.NoTargetColumn([]).human_readable() == ""
