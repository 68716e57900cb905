"""The power fencer over the Redfish driver against the sushy-tools emulator (fake driver) on loopback."""

import sushy

from keyvrm.drivers.fencing import redfish
from keyvrm.fencing import power
from tests.functional.fencing import conftest
from tests.functional.fencing import helpers


def _power_state(port):
    root = sushy.Sushy(f"http://127.0.0.1:{port}/redfish/v1", username=conftest.USER,
                       password=conftest.PASSWORD, auth=None)
    return root.get_system(f"/redfish/v1/Systems/{conftest.SYSTEM_UUID}").power_state


def _fencer(creds, timeout_s=10, clock=None):
    clock = clock or helpers.FakeClock()
    driver = redfish.RedfishPowerDriver(lambda host: creds[host].bmc, retries=1, retry_delay_s=0.1)
    return power.PowerFencer(driver, power_check_timeout_s=timeout_s, poll_interval_s=0.2,
                             clock=clock, sleep=clock.sleep)


def test_force_off_is_confirmed_and_the_system_is_off(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed, result.message
    assert result.message == "power off confirmed"
    assert _power_state(port) == sushy.POWER_STATE_OFF


def test_repeated_fence_of_an_off_system_is_harmless(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(port)})
    fencer = _fencer(creds)

    first, second = fencer.fence("compute-1"), fencer.fence("compute-1")

    assert first.confirmed and second.confirmed
    assert second.message == "power already off"
    assert _power_state(port) == sushy.POWER_STATE_OFF


def test_power_off_slower_than_the_check_timeout_is_unconfirmed(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", power_delay_s=300)
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(port)})
    clock = helpers.FakeClock()

    result = _fencer(creds, timeout_s=3, clock=clock).fence("compute-1")

    assert not result.confirmed
    assert "within 3 s" in result.message
    assert result.duration_s >= 3
    assert _power_state(port) == sushy.POWER_STATE_ON


def test_bmc_error_500_is_unconfirmed(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", fail_reset=True)
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "500" in result.message


def test_wrong_password_is_unconfirmed_and_not_echoed(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.redfish_host(port, password="wrong-Pa55")})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "401" in result.message or "Access" in result.message
    assert "wrong-Pa55" not in result.message
    assert _power_state(port) == sushy.POWER_STATE_ON


def test_unreachable_bmc_is_unconfirmed(tmp_path):
    port = conftest.free_port()
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(port)})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "Connection" in result.message


def test_auto_auth_falls_back_to_basic_on_a_bmc_without_sessions(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.redfish_host(port, auth="auto")})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed, result.message


def test_session_auth_fences_through_a_redfish_session(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", sessions="only")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.redfish_host(port, auth="session")})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed, result.message
    assert "session created" in (tmp_path / "emulator-0.log").read_text()
    assert _session_power_state(port) == sushy.POWER_STATE_OFF


def test_basic_auth_is_refused_by_a_sessions_only_bmc(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", sessions="only")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.redfish_host(port, auth="basic")})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert _session_power_state(port) == sushy.POWER_STATE_ON


def test_auto_auth_prefers_the_session_when_the_bmc_offers_one(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", sessions="1")
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": helpers.redfish_host(port, auth="auto")})

    result = _fencer(creds).fence("compute-1")

    assert result.confirmed, result.message
    assert "session created" in (tmp_path / "emulator-0.log").read_text()


def test_session_with_a_wrong_password_is_unconfirmed_and_not_echoed(redfish_bmc, tmp_path):
    port = redfish_bmc(power_state="On", sessions="only")
    creds = helpers.write_credentials(tmp_path, {"compute-1": helpers.redfish_host(
        port, password="not-the-password-123", auth="session")})

    result = _fencer(creds).fence("compute-1")

    assert not result.confirmed
    assert "not-the-password-123" not in result.message


def _session_power_state(port):
    auth = sushy.auth.SessionAuth(username=conftest.USER, password=conftest.PASSWORD)
    root = sushy.Sushy(f"http://127.0.0.1:{port}/redfish/v1", auth=auth)
    return root.get_system(f"/redfish/v1/Systems/{conftest.SYSTEM_UUID}").power_state
