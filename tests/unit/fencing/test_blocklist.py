"""The blocklist fencer (production's, for every Ceph cluster) over the simulated cluster."""

from keyvrm.fencing import blocklist
from keyvrm.simulator.drivers.fencing import SimBlocklistDriver
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r


def _region():
    return generator.generate({"hosts": 2}, {"vms_per_host": 1}, r.RegionOptions(seed=3))


def _fencer(region, addresses):
    return blocklist.BlocklistFencer(SimBlocklistDriver(region), lambda host: addresses,
                                     clock=lambda: region.now, sleep=region.clock.advance)


def test_every_client_address_blocklisted_is_confirmed():
    region = _region()

    result = _fencer(region, ["10.0.0.1:0/0", "10.0.0.2:0/0"]).fence("cmp-00001")

    assert result.confirmed
    assert {"10.0.0.1:0/0", "10.0.0.2:0/0"} <= set(region.blocklist)


def test_a_host_without_client_addresses_is_unconfirmed():
    result = _fencer(_region(), []).fence("cmp-00001")

    assert not result.confirmed and "no Ceph client addresses" in result.message


def test_monitors_that_do_not_answer_leave_the_host_unfenced():
    region = _region()
    faults.ceph_outage(region, {"duration_s": 60})

    result = _fencer(region, ["10.0.0.1:0/0"]).fence("cmp-00001")

    assert not result.confirmed and "did not answer" in result.message
