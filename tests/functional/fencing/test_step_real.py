"""The HA fencing step end to end against real peers; the BMC password never reaches logs."""

import base64
import dataclasses
import logging

from keyvrm.drivers.fencing import ceph
from keyvrm.fencing import blocklist
from keyvrm.fencing import bmc
from keyvrm.fencing import credentials
from keyvrm.fencing import nova
from keyvrm.fencing import step
from keyvrm.model import settings
from tests.functional.fencing import conftest
from tests.functional.fencing import helpers
from tests.unit.fencing import test_nova

ALL_ON = dataclasses.replace(settings.AppConfig(), ha_fence_ceph=True, ha_fence_bmc=True,
                             ha_fence_nova=True)


def _secrets_in(text):
    basic = base64.b64encode(f"{conftest.USER}:{conftest.PASSWORD}".encode()).decode()
    return [s for s in (conftest.PASSWORD, basic) if s in text]


def _run(creds, conf, keyring, timeout_s=5):
    clock = helpers.FakeClock()
    return step.fence_host(
        "compute-1", ALL_ON,
        ceph=blocklist.BlocklistFencer(ceph.CephBlocklistDriver(ceph_conf=conf, keyring=keyring),
                                       credentials.ceph_addresses_of(creds), clock=clock,
                                       sleep=clock.sleep),
        bmc=bmc.BmcFencers(creds, power_check_timeout_s=timeout_s, poll_interval_s=0.2,
                           clock=clock, sleep=clock.sleep),
        nova=nova.NovaFencer(test_nova.InMemoryServices(["compute-1"]), clock=clock,
                             sleep=clock.sleep),
        clock=clock)


def test_redfish_ceph_nova_run_fences_and_logs_no_password(redfish_bmc, ceph_mon, tmp_path,
                                                           caplog):
    conf, keyring = ceph_mon
    host = helpers.redfish_host(redfish_bmc(power_state="On"))
    host["ceph"] = {"client_addresses": ["127.0.0.31"]}
    creds = helpers.write_credentials(tmp_path, {"compute-1": host})
    caplog.set_level(logging.DEBUG)

    outcome = _run(creds, conf, keyring)

    assert outcome.fenced, outcome
    assert [r.fencer for r in outcome.results] == ["ceph", "redfish", "nova"]
    assert caplog.records, "the run is expected to log (sushy logs at debug)"
    assert _secrets_in(caplog.text) == []
    assert _secrets_in(repr(outcome) + repr(creds)) == []


def test_ipmi_never_off_makes_the_whole_step_fail_and_logs_no_password(
        ipmi_bmc, ceph_mon, tmp_path, caplog):
    conf, keyring = ceph_mon
    host = helpers.ipmi_host(ipmi_bmc(power_state="on", off_mode="never"))
    host["ceph"] = {"client_addresses": ["127.0.0.32"]}
    creds = helpers.write_credentials(tmp_path, {"compute-1": host})
    caplog.set_level(logging.DEBUG)

    outcome = _run(creds, conf, keyring, timeout_s=2)

    assert not outcome.fenced
    assert outcome.reason == step.FENCING_FAILED
    assert [(r.fencer, r.confirmed) for r in outcome.results] == [
        ("ceph", True), ("ipmi", False), ("nova", False)]  # Nova is not told a host the BMC did not prove off
    assert outcome.results[-1].message.startswith("not run")
    assert _secrets_in(caplog.text + repr(outcome)) == []
