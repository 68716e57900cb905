"""Redfish driver connection choices: auth mode, TLS verification, bounded retries, one connection per host."""

import sushy
from sushy import auth as sushy_auth

from keyvrm.drivers.fencing import redfish
from keyvrm.fencing import credentials
from keyvrm.fencing import power


class FakeSystem:
    power_state = sushy.POWER_STATE_ON

    def refresh(self, force=False):
        pass

    def reset_system(self, value):
        self.power_state = sushy.POWER_STATE_OFF


class RecordingConnect:
    def __init__(self):
        self.calls = []
        self.system = FakeSystem()

    def __call__(self, url, **kwargs):
        self.calls.append((url, kwargs))
        return self

    def get_system(self, system_id):
        return self.system


def _bmc_of(auth, verify_tls):
    bmc = credentials.BmcCredentials("redfish", "bmc.example", 8443, "admin",
                                     credentials.Secret("pw"), verify_tls,
                                     "/redfish/v1/Systems/1", auth, "https")
    return lambda host: bmc


def _fencer(driver):
    return power.PowerFencer(driver, power_check_timeout_s=5, clock=lambda: 0.0,
                             sleep=lambda s: None)


def test_session_auth_and_tls_settings_reach_sushy():
    connect = RecordingConnect()
    driver = redfish.RedfishPowerDriver(_bmc_of("session", False), retries=2, connect=connect)

    result = _fencer(driver).fence("compute-1")

    assert result.confirmed
    assert result.fencer == "redfish"
    url, kwargs = connect.calls[0]
    assert url == "https://bmc.example:8443/redfish/v1"
    assert isinstance(kwargs["auth"], sushy_auth.SessionAuth)
    assert kwargs["verify"] is False
    assert kwargs["server_side_retries"] == 2


def test_one_connection_serves_every_call_for_a_host():
    connect = RecordingConnect()

    _fencer(redfish.RedfishPowerDriver(_bmc_of("session", True), connect=connect)).fence("compute-1")

    assert len(connect.calls) == 1


def test_basic_auth_is_used_when_configured():
    connect = RecordingConnect()
    _fencer(redfish.RedfishPowerDriver(_bmc_of("basic", True), connect=connect)).fence("compute-1")

    _, kwargs = connect.calls[0]
    assert isinstance(kwargs["auth"], sushy_auth.BasicAuth)
    assert kwargs["verify"] is True
