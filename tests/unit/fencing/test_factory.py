"""Fencers built from the deployment config: only the enabled ones, credentials only if needed."""

import sys

from oslo_config import cfg
import pytest

from keyvrm import conf as keyvrm_conf
from keyvrm import exception
from keyvrm.fencing import blocklist
from keyvrm.fencing import factory
from keyvrm.fencing import power
from keyvrm.model import settings
from keyvrm.simulator.drivers.cloud import SimCloudDriver
from keyvrm.simulator import generator
from keyvrm.simulator import region as r

CREDENTIALS = """
hosts:
  cmp-1:
    bmc: {protocol: ipmi, address: 127.0.0.1, port: 6230, username: admin, password: s3cret}
    ceph: {client_addresses: [192.0.2.10]}
  cmp-2:
    bmc: {protocol: redfish, address: 127.0.0.1, port: 8000, username: admin, password: s3cret}
"""


def _conf(credentials_file):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], default_config_files=[])
    conf.set_override("credentials_file", str(credentials_file), group="fencing")
    return conf


def _cloud():
    return SimCloudDriver(generator.generate({"hosts": 2}, {"vms_per_host": 1},
                                             r.RegionOptions(seed=1)))


def _power_fencer_over(fencer):
    """The protocol of a power fencer: the fencer class is the one the scenarios run."""
    assert isinstance(fencer, power.PowerFencer)
    return fencer.name


def test_nova_only_deployment_needs_no_credentials_file(tmp_path):
    fencers = factory.fencers_from_conf(_conf(tmp_path / "absent.yaml"), settings.AppConfig(),
                                        _cloud())
    assert fencers.nova is not None and fencers.ceph is None and fencers.bmc is None


def test_enabled_bmc_fencer_follows_each_hosts_protocol(tmp_path):
    path = tmp_path / "fencing.yaml"
    path.write_text(CREDENTIALS)
    app = settings.AppConfig(ha_fence_bmc=True, ha_fence_ceph=True, ha_fence_nova=False)
    fencers = factory.fencers_from_conf(_conf(path), app, _cloud())
    assert _power_fencer_over(fencers.bmc("cmp-1")) == "ipmi"
    assert _power_fencer_over(fencers.bmc("cmp-2")) == "redfish"
    assert isinstance(fencers.ceph, blocklist.BlocklistFencer)
    assert fencers.nova is None


def test_a_missing_protocol_library_fails_only_its_hosts_naming_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "fencing.yaml"
    path.write_text(CREDENTIALS)
    monkeypatch.delitem(sys.modules, "keyvrm.drivers.fencing.ipmi", raising=False)
    monkeypatch.setitem(sys.modules, "pyghmi", None)  # as if keyvrm[ipmi] were not installed
    fencers = factory.fencers_from_conf(_conf(path), settings.AppConfig(ha_fence_bmc=True), _cloud())
    with pytest.raises(LookupError, match=r"ipmi fencing needs pyghmi: install keyvrm\[ipmi\]"):
        fencers.bmc("cmp-1")
    assert _power_fencer_over(fencers.bmc("cmp-2")) == "redfish"


def test_bad_credentials_file_is_refused_naming_the_field(tmp_path):
    path = tmp_path / "fencing.yaml"
    path.write_text("hosts:\n  cmp-1:\n    bmc: {protocol: telnet}\n")
    with pytest.raises(exception.InvalidField) as caught:
        factory.fencers_from_conf(_conf(path), settings.AppConfig(ha_fence_bmc=True), _cloud())
    assert caught.value.field.startswith("hosts.cmp-1.bmc")
