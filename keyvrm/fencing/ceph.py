"""Ceph fencer: blocklists a host's Ceph client addresses and checks the blocklist afterwards.

Why the ``ceph`` CLI and not librados ``mon_command``: the ``rados`` Python binding is a
Debian package built for the system interpreter and cannot be pip-installed into the
service's virtualenv, while the CLI ships with ``ceph-common`` on every Ceph client host
and runs with ``/usr/bin/python3`` whatever our interpreter is. The command line is also
the boundary Ceph operators already audit and reproduce by hand. The cost is one process
start per command (~0.3 s), negligible next to a fencing decision. Each call gets a
connect timeout and a process timeout, so a dead monitor cannot hang the HA step.

Confirmation parses ``osd blocklist ls -f json``; Ceph 16.2 prints two JSON arrays back to
back (address blocklist, then range blocklist), so every array in the output is read.
An address already blocklisted is fenced: adding it again only renews its expiry.
"""

import json
import subprocess
import time

from keyvrm.fencing import base


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


class CephFencer(base.Fencer):
    """Fences by ``ceph osd blocklist add`` of every client address the inventory gives."""

    name = "ceph"

    def __init__(self, credentials: dict, ceph_conf: str, client_name: str = "client.admin",
                 keyring: str = None, expire_s: float = 7 * 24 * 3600.0,
                 command_timeout_s: float = 30.0, clock: base.Clock = time.time,
                 sleep: base.Sleep = time.sleep, run=subprocess.run, executable: str = "ceph"):
        super().__init__(clock, sleep)
        self._credentials = credentials
        self._base_argv = [executable, "--conf", ceph_conf, "--name", client_name,
                           "--connect-timeout", str(int(command_timeout_s))]
        if keyring:
            self._base_argv += ["--keyring", keyring]
        self._expire_s = expire_s
        self._timeout_s = command_timeout_s
        self._run = run

    def _ceph(self, *args):
        completed = self._run(self._base_argv + list(args), capture_output=True, text=True,
                              timeout=self._timeout_s)
        if completed.returncode != 0:
            raise RuntimeError(f"ceph {' '.join(args)} exited {completed.returncode}: "
                               f"{completed.stderr.strip()[-300:]}")
        return completed.stdout

    def _fence(self, host):
        addresses = self._credentials[host].ceph_client_addresses
        if not addresses:
            return False, "no Ceph client addresses in the credentials file"
        for address in addresses:
            self._ceph("osd", "blocklist", "add", address, str(float(self._expire_s)))
        listed = parse_blocklist(self._ceph("osd", "blocklist", "ls", "-f", "json"))
        missing = [a for a in addresses if a not in listed]
        if missing:
            return False, f"not in the blocklist after adding: {', '.join(missing)}"
        return True, f"blocklisted {', '.join(addresses)}"
