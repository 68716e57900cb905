"""The power fencer (production's, for every BMC) over the simulated region's BMCs."""

from keyvrm.fencing import power
from keyvrm.simulator.drivers.fencing import SimPowerDriver
from keyvrm.simulator import faults
from keyvrm.simulator import generator
from keyvrm.simulator import region as r


def _region():
    return generator.generate({"hosts": 2}, {"vms_per_host": 1}, r.RegionOptions(seed=3))


def _fencer(region, timeout_s=30):
    return power.PowerFencer(SimPowerDriver(region), timeout_s, poll_interval_s=2,
                             clock=lambda: region.now, sleep=region.clock.advance)


def test_power_off_is_confirmed_once_the_bmc_reports_the_host_off():
    region = _region()

    result = _fencer(region).fence("cmp-00001")

    assert result.confirmed and result.message == "power off confirmed"
    assert not region.hosts["cmp-00001"].powered
    assert 0 < result.duration_s <= 30


def test_a_host_already_off_counts_as_fenced():
    region = _region()
    fencer = _fencer(region)
    fencer.fence("cmp-00001")

    assert fencer.fence("cmp-00001").message == "power already off"


def test_a_bmc_that_does_not_answer_leaves_the_host_unfenced():
    region = _region()
    faults.bmc_fault(region, {"hosts": ["cmp-00001"], "mode": r.BMC_TIMEOUT})

    result = _fencer(region).fence("cmp-00001")

    assert not result.confirmed and "DriverUnavailable" in result.message
    assert region.hosts["cmp-00001"].powered


def test_a_host_slower_to_go_dark_than_the_check_timeout_is_unconfirmed():
    region = _region()

    result = _fencer(region, timeout_s=0.5).fence("cmp-00001")

    assert not result.confirmed
    assert "within 0.5 s" in result.message
