"""Parsing of ``ceph osd blocklist ls -f json`` and the Ceph driver's command line, under the blocklist fencer."""

import subprocess

import pytest

from keyvrm.drivers import errors
from keyvrm.drivers.fencing import ceph
from keyvrm.fencing import blocklist


def test_pacific_output_with_two_arrays_back_to_back_is_read_whole():
    text = ('[{"addr":"10.0.0.5:0/0","until":"2026-12-02T14:49:50.610339+0000"}]'
            '[{"range":"10.0.1.0:0/24","until":"2026-12-02T14:49:50+0000"}]\n')

    assert ceph.parse_blocklist(text) == {"10.0.0.5:0/0", "10.0.1.0:0/24"}


def test_single_array_and_empty_lists_are_read():
    assert ceph.parse_blocklist('[{"addr":"10.0.0.5:0/0"}]') == {"10.0.0.5:0/0"}
    assert ceph.parse_blocklist("[][]") == set()


class FakeCeph:
    """Stands in for subprocess.run of the ``ceph`` CLI, keeping a blocklist."""

    def __init__(self, drop=(), hang=False):
        self.blocklist = set()
        self.drop = set(drop)
        self.hang = hang
        self.argvs = []

    def __call__(self, argv, **kwargs):
        self.argvs.append(argv)
        if self.hang:
            raise subprocess.TimeoutExpired(argv, kwargs["timeout"])
        op = argv[argv.index("blocklist") + 1]
        stdout = ""
        if op == "add" and argv[argv.index("add") + 1] not in self.drop:
            self.blocklist.add(argv[argv.index("add") + 1])
        elif op == "ls":
            stdout = "[%s][]" % ",".join('{"addr":"%s"}' % a for a in sorted(self.blocklist))
        return subprocess.CompletedProcess(argv, 0, stdout, "")


def _fencer(run, *addresses, expire_s=600):
    driver = ceph.CephBlocklistDriver("/etc/ceph/ceph.conf", run=run)
    return blocklist.BlocklistFencer(driver, lambda host: addresses, expire_s=expire_s,
                                     clock=lambda: 0.0)


def test_blocklist_entry_missing_after_add_is_unconfirmed():
    run = FakeCeph(drop={"10.0.0.6:0/0"})

    result = _fencer(run, "10.0.0.5:0/0", "10.0.0.6:0/0").fence("compute-1")

    assert not result.confirmed
    assert "10.0.0.6:0/0" in result.message


def test_expire_is_sent_as_a_float():
    run = FakeCeph()

    assert _fencer(run, "10.0.0.5:0/0", expire_s=600).fence("compute-1").confirmed
    assert run.argvs[0][-2:] == ["10.0.0.5:0/0", "600.0"]


def test_a_hung_ceph_command_is_a_peer_that_did_not_answer():
    driver = ceph.CephBlocklistDriver("/etc/ceph/ceph.conf", command_timeout_s=3,
                                      run=FakeCeph(hang=True))

    with pytest.raises(errors.DriverUnavailable, match="within 3 s"):
        driver.add("10.0.0.5:0/0")


def test_a_host_without_client_addresses_is_unconfirmed_and_nothing_is_sent():
    run = FakeCeph()

    result = _fencer(run).fence("compute-1")

    assert not result.confirmed and run.argvs == []
