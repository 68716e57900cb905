"""Ceph blocklist driver: adds and lists OSD blocklist entries with the ``ceph`` CLI.

Why the ``ceph`` CLI and not librados ``mon_command``: the ``rados`` Python binding is a
Debian package built for the system interpreter and cannot be pip-installed into the
service's virtualenv, while the CLI ships with ``ceph-common`` on every Ceph client host
and runs with ``/usr/bin/python3`` whatever our interpreter is. The command line is also
the boundary Ceph operators already audit and reproduce by hand. The cost is one process
start per command (~0.3 s), negligible next to a fencing decision. Each call gets a
connect timeout and a process timeout, so a dead monitor cannot hang the HA step.

``osd blocklist ls -f json`` on Ceph 16.2 prints two JSON arrays back to back (address
blocklist, then range blocklist), so every array in the output is read. Adding an
address already blocklisted only renews its expiry.
"""

import json
import subprocess
from typing import Optional

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.errors import FencingError
from keyvrm.drivers.fencing import base


def parse_blocklist(text: str) -> set:
    """Addresses listed by ``osd blocklist ls -f json`` (all concatenated JSON arrays)."""
    decoder = json.JSONDecoder()
    addresses = set()
    position = 0
    text = text.strip()
    while position < len(text):
        entries, position = decoder.raw_decode(text, position)
        while position < len(text) and text[position].isspace():
            position += 1
        for entry in entries:
            addresses.add(entry.get("addr") or entry.get("range"))
    return addresses


class CephBlocklistDriver(base.BlocklistDriver):
    """``BlocklistDriver`` over the ``ceph`` CLI of a cluster (its conf, client name and keyring)."""

    def __init__(self, ceph_conf: str, client_name: str = "client.admin",
                 keyring: Optional[str] = None, command_timeout_s: float = 30.0,
                 run=subprocess.run, executable: str = "ceph"):
        self._base_argv = [executable, "--conf", ceph_conf, "--name", client_name,
                           "--connect-timeout", str(int(command_timeout_s))]
        if keyring:
            self._base_argv += ["--keyring", keyring]
        self._timeout_s = command_timeout_s
        self._run = run

    def add(self, address, expire_s=None):
        expiry = [] if expire_s is None else [str(float(expire_s))]
        self._ceph("osd", "blocklist", "add", address, *expiry)

    def list_addresses(self):
        return parse_blocklist(self._ceph("osd", "blocklist", "ls", "-f", "json"))

    def _ceph(self, *args):
        try:
            completed = self._run(self._base_argv + list(args), capture_output=True, text=True,
                                  timeout=self._timeout_s)
        except subprocess.TimeoutExpired as exc:
            raise DriverUnavailable(f"ceph {' '.join(args)} did not finish within "
                                    f"{self._timeout_s:g} s") from exc
        if completed.returncode != 0:
            raise FencingError(f"ceph {' '.join(args)} exited {completed.returncode}: "
                               f"{completed.stderr.strip()[-300:]}")
        return completed.stdout
