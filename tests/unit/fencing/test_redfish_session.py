"""RedfishFencer connection choices: auth mode, TLS verification, bounded retries."""

import sushy
from sushy import auth as sushy_auth

from keyvrm.fencing import credentials
from keyvrm.fencing import redfish


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


def _creds(auth, verify_tls):
    bmc = credentials.BmcCredentials("redfish", "bmc.example", 8443, "admin",
                                     credentials.Secret("pw"), verify_tls,
                                     "/redfish/v1/Systems/1", auth, "https")
    return {"compute-1": credentials.HostCredentials("compute-1", bmc)}


def test_session_auth_and_tls_settings_reach_sushy():
    connect = RecordingConnect()
    fencer = redfish.RedfishFencer(_creds("session", False), power_check_timeout_s=5,
                                   clock=lambda: 0.0, sleep=lambda s: None, retries=2,
                                   connect=connect)

    result = fencer.fence("compute-1")

    assert result.confirmed
    url, kwargs = connect.calls[0]
    assert url == "https://bmc.example:8443/redfish/v1"
    assert isinstance(kwargs["auth"], sushy_auth.SessionAuth)
    assert kwargs["verify"] is False
    assert kwargs["server_side_retries"] == 2


def test_basic_auth_is_used_when_configured():
    connect = RecordingConnect()
    redfish.RedfishFencer(_creds("basic", True), power_check_timeout_s=5, clock=lambda: 0.0,
                          sleep=lambda s: None, connect=connect).fence("compute-1")

    _, kwargs = connect.calls[0]
    assert isinstance(kwargs["auth"], sushy_auth.BasicAuth)
    assert kwargs["verify"] is True
