"""The power fencer over the IPMI driver against a fake pyghmi BMC on loopback; ipmitool drives the same BMC."""

import subprocess

from keyvrm.drivers.fencing import ipmi
from keyvrm.fencing import power
from tests.functional.fencing import conftest
from tests.functional.fencing import helpers


def _power_state(port):
    """The BMC's power state as ipmitool (another process) reads it."""
    return _ipmitool(port, "status").stdout.strip().rsplit(" ", 1)[-1]


def _fencer(creds, timeout_s=10, clock=None):
    clock = clock or helpers.FakeClock()
    driver = ipmi.IpmiPowerDriver(lambda host: creds[host].bmc)
    return power.PowerFencer(driver, power_check_timeout_s=timeout_s, poll_interval_s=0.2,
                             clock=clock, sleep=clock.sleep)


def test_power_off_is_confirmed_and_the_host_is_off(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed, result.message
    assert result.message == "power off confirmed"
    assert _power_state(port) == "off"


def test_repeated_fence_of_an_off_host_is_harmless(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})
    fencer = _fencer(creds)

    first, second = fencer.fence("compute-1"), fencer.fence("compute-1")

    assert first.confirmed and second.confirmed
    assert second.message == "power already off"


def test_bmc_that_never_reports_off_is_unconfirmed_after_the_timeout(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on", off_mode="never")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})

    result = _fencer(creds, timeout_s=3).fence("compute-1")

    assert not result.confirmed
    assert "within 3 s" in result.message
    assert result.duration_s >= 3
    assert _power_state(port) == "on"


def test_wrong_password_is_unconfirmed_and_not_echoed(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.ipmi_host(port, password="wrong-Pa55")})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "Incorrect password" in result.message
    assert "wrong-Pa55" not in result.message
    assert _power_state(port) == "on"


def test_unreachable_bmc_is_unconfirmed(tmp_path):
    port = conftest.free_port()
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "no answer" in result.message


def _ipmitool(port, *command):
    binary = conftest.require_binary("ipmitool")
    return subprocess.run([binary, "-I", "lanplus", "-H", "127.0.0.1", "-p", str(port),
                           "-U", conftest.USER, "-P", conftest.PASSWORD, "power", *command],
                          capture_output=True, text=True, timeout=30)


def test_ipmitool_sees_the_host_off_after_fencing(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on")
    assert "Chassis Power is on" in _ipmitool(port, "status").stdout
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})

    assert _fencer(creds).fence("compute-1").confirmed

    assert "Chassis Power is off" in _ipmitool(port, "status").stdout


def test_host_powered_off_by_ipmitool_counts_as_fenced(ipmi_bmc, tmp_path):
    port = ipmi_bmc(power_state="on")
    assert _ipmitool(port, "off").returncode == 0
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.ipmi_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed
    assert result.message == "power already off"
