"""The blocklist fencer over the Ceph driver against a single real ceph-mon on loopback (command path, no OSDs)."""

import subprocess

from keyvrm.drivers.fencing import ceph
from keyvrm.fencing import blocklist
from keyvrm.fencing import credentials
from tests.functional.fencing import conftest
from tests.functional.fencing import helpers


def _fencer(creds, conf, keyring, command_timeout_s=20):
    clock = helpers.FakeClock()
    cluster = ceph.CephBlocklistDriver(ceph_conf=conf, keyring=keyring,
                                       command_timeout_s=command_timeout_s)
    return blocklist.BlocklistFencer(cluster, credentials.ceph_addresses_of(creds), expire_s=600,
                                     clock=clock, sleep=clock.sleep)


def _blocklist(conf):
    listed = subprocess.run(["ceph", "--conf", conf, "osd", "blocklist", "ls", "-f", "json"],
                            capture_output=True, text=True, check=True, timeout=30)
    return ceph.parse_blocklist(listed.stdout)


def test_every_client_address_is_blocklisted_and_confirmed(ceph_mon, tmp_path):
    conf, keyring = ceph_mon
    creds = helpers.write_credentials(tmp_path, {"compute-1": {"ceph": {
        "client_addresses": ["127.0.0.21", "127.0.0.22:6800/1234"]}}})

    result = _fencer(creds, conf, keyring).fence("compute-1")

    assert result.confirmed, result.message
    assert {"127.0.0.21:0/0", "127.0.0.22:6800/1234"} <= _blocklist(conf)


def test_repeated_fence_renews_the_entry_harmlessly(ceph_mon, tmp_path):
    conf, keyring = ceph_mon
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": {"ceph": {"client_addresses": ["127.0.0.23"]}}})
    fencer = _fencer(creds, conf, keyring)

    first, second = fencer.fence("compute-1"), fencer.fence("compute-1")

    assert first.confirmed and second.confirmed
    assert "127.0.0.23:0/0" in _blocklist(conf)


def test_refused_client_key_is_unconfirmed(ceph_mon, tmp_path):
    conf, _ = ceph_mon
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": {"ceph": {"client_addresses": ["127.0.0.24"]}}})
    wrong_keyring = tmp_path / "other.keyring"
    subprocess.run(["ceph-authtool", "--create-keyring", str(wrong_keyring), "--gen-key",
                    "-n", "client.admin"], check=True, capture_output=True)

    result = _fencer(creds, conf, str(wrong_keyring), command_timeout_s=3).fence("compute-1")

    assert not result.confirmed
    assert "127.0.0.24:0/0" not in _blocklist(conf)


def test_host_without_client_addresses_is_unconfirmed(ceph_mon, tmp_path):
    conf, keyring = ceph_mon
    creds = helpers.write_credentials(tmp_path, {"compute-1": {}})

    result = _fencer(creds, conf, keyring).fence("compute-1")

    assert not result.confirmed
    assert "no Ceph client addresses" in result.message


def test_unreachable_monitor_is_unconfirmed(ceph_mon, tmp_path):
    conf, keyring = ceph_mon
    dead_port = conftest.free_port()
    dead_conf = tmp_path / "dead.conf"
    dead_conf.write_text("[global]\nmon host = v1:127.0.0.1:%d\n" % dead_port)
    creds = helpers.write_credentials(
        tmp_path, {"compute-1": {"ceph": {"client_addresses": ["127.0.0.25"]}}})

    result = _fencer(creds, str(dead_conf), keyring, command_timeout_s=2).fence("compute-1")

    assert not result.confirmed
