"""Parsing of ``ceph osd blocklist ls -f json`` and the Ceph fencer's command line."""

import subprocess

from keyvrm.fencing import ceph
from keyvrm.fencing import credentials


def test_pacific_output_with_two_arrays_back_to_back_is_read_whole():
    text = ('[{"addr":"10.0.0.5:0/0","until":"2026-12-02T14:49:50.610339+0000"}]'
            '[{"range":"10.0.1.0:0/24","until":"2026-12-02T14:49:50+0000"}]\n')

    assert ceph.parse_blocklist(text) == {"10.0.0.5:0/0", "10.0.1.0:0/24"}


def test_single_array_and_empty_lists_are_read():
    assert ceph.parse_blocklist('[{"addr":"10.0.0.5:0/0"}]') == {"10.0.0.5:0/0"}
    assert ceph.parse_blocklist("[][]") == set()


class FakeCeph:
    """Stands in for subprocess.run of the ``ceph`` CLI, keeping a blocklist."""

    def __init__(self, drop=()):
        self.blocklist = set()
        self.drop = set(drop)
        self.argvs = []

    def __call__(self, argv, **kwargs):
        self.argvs.append(argv)
        op = argv[argv.index("blocklist") + 1]
        stdout = ""
        if op == "add" and argv[argv.index("add") + 1] not in self.drop:
            self.blocklist.add(argv[argv.index("add") + 1])
        elif op == "ls":
            stdout = "[%s][]" % ",".join('{"addr":"%s"}' % a for a in sorted(self.blocklist))
        return subprocess.CompletedProcess(argv, 0, stdout, "")


def _creds(*addresses):
    return {"compute-1": credentials.HostCredentials("compute-1", None, addresses)}


def test_blocklist_entry_missing_after_add_is_unconfirmed():
    run = FakeCeph(drop={"10.0.0.6:0/0"})
    fencer = ceph.CephFencer(_creds("10.0.0.5:0/0", "10.0.0.6:0/0"), "/etc/ceph/ceph.conf",
                             run=run, clock=lambda: 0.0)

    result = fencer.fence("compute-1")

    assert not result.confirmed
    assert "10.0.0.6:0/0" in result.message


def test_expire_is_sent_as_a_float():
    run = FakeCeph()
    fencer = ceph.CephFencer(_creds("10.0.0.5:0/0"), "/etc/ceph/ceph.conf", expire_s=600,
                             run=run, clock=lambda: 0.0)

    assert fencer.fence("compute-1").confirmed
    assert run.argvs[0][-2:] == ["10.0.0.5:0/0", "600.0"]
