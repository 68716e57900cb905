"""Fixtures that start real fencing peers on loopback: sushy-tools, a pyghmi BMC, ceph-mon.

Each peer gets a free port and a fresh temp dir and is stopped by PID afterwards. A
missing binary skips the test on a workstation and fails it in CI (``CI=true``).
"""

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import bcrypt
import pytest
import requests

HERE = os.path.dirname(os.path.abspath(__file__))
USER = "fence-admin"
PASSWORD = "s3cr3t-Pa55-4-keyvrm"
SYSTEM_UUID = "5e8c6f3a-0b7e-4d9c-9a63-9d7c0c1b2a10"


def require_binary(name):
    """Path of ``name``; skip without it, unless CI=true, where its absence fails the test."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{name} is required in CI but is not installed")
        pytest.skip(f"{name} is not installed")
    return path


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_for(check, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up within {timeout_s} s")


@pytest.fixture
def redfish_bmc(tmp_path):
    """Factory: start a sushy-tools fake-driver emulator; returns its port.

    ``sessions``: "0" basic auth only (as sushy-tools), "1" also a SessionService,
    "only" sessions only (see redfish_sessions.py); the emulator log is
    ``emulator-N.log`` in ``tmp_path``.
    """
    processes = []

    def start(power_state="On", power_delay_s=0, fail_reset=False, sessions="0"):
        state_dir = tmp_path / f"state-{len(processes)}"
        state_dir.mkdir()
        auth_file = tmp_path / "htpasswd"
        hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds=4)).decode()
        auth_file.write_text(f"{USER}:{hashed}\n")
        port = free_port()
        config = tmp_path / f"emulator-{len(processes)}.conf"
        config.write_text(textwrap.dedent(f"""\
            SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'
            SUSHY_EMULATOR_LISTEN_PORT = {port}
            SUSHY_EMULATOR_FAKE_DRIVER = True
            SUSHY_EMULATOR_STATE_DIR = {str(state_dir)!r}
            SUSHY_EMULATOR_AUTH_FILE = {str(auth_file)!r}
            SUSHY_EMULATOR_FAKE_SYSTEMS = [{{
                'uuid': {SYSTEM_UUID!r}, 'name': 'compute-1',
                'power_state': {power_state!r}, 'external_notifier': False,
                'nics': [{{'mac': '00:5c:52:31:3a:9c', 'ip': '127.0.0.2'}}]}}]
            """))
        env = dict(os.environ, KEYVRM_SUSHY_POWER_DELAY_S=str(power_delay_s),
                   KEYVRM_SUSHY_FAIL_RESET="1" if fail_reset else "0",
                   KEYVRM_SUSHY_SESSIONS=sessions)
        log = open(tmp_path / f"emulator-{len(processes)}.log", "w")
        process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "sushy_wrapper.py"), "--config", str(config)],
            env=env, stdout=log, stderr=subprocess.STDOUT)
        processes.append((process, log))

        def answers():
            try:
                return requests.get(f"http://127.0.0.1:{port}/redfish/v1", timeout=1).ok
            except requests.RequestException:
                return False
        _wait_for(answers, 60, "sushy-emulator")
        return port

    yield start
    for process, log in processes:
        _stop(process)
        log.close()


@pytest.fixture
def ipmi_bmc(tmp_path):
    """Factory: start the fake pyghmi BMC in a subprocess; returns its UDP port."""
    processes = []

    def start(power_state="on", off_mode="immediate"):
        port = free_port(socket.SOCK_DGRAM)
        log = open(tmp_path / f"bmc-{len(processes)}.log", "w")
        process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fake_bmc.py"), str(port), USER, PASSWORD,
             power_state, off_mode], stdout=subprocess.PIPE, stderr=log, text=True)
        processes.append((process, log))
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError("fake BMC did not start")
        return port

    yield start
    for process, log in processes:
        _stop(process)
        log.close()


CEPH_CONF = """\
[global]
fsid = {fsid}
mon initial members = a
mon host = [v2:127.0.0.1:{port_v2},v1:127.0.0.1:{port_v1}]
public addr = 127.0.0.1
ms bind ipv4 = true
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = {dir}/admin.keyring
run dir = {dir}/run
log file = {dir}/log/$name.log
admin socket = {dir}/run/$name.asok
mon data avail warn = 1
mon data avail crit = 0
paxos propose interval = 0.01
paxos min wait = 0.01
[mon]
mon data = {dir}/mon/$cluster-$id
admin socket = {dir}/run/$name.asok
"""


@pytest.fixture
def ceph_mon(tmp_path):
    """A single ceph-mon on 127.0.0.1 with cephx; returns (ceph.conf, admin keyring)."""
    for binary in ("ceph-mon", "ceph", "ceph-authtool", "monmaptool"):
        require_binary(binary)
    directory = tmp_path / "ceph"
    for sub in ("mon", "run", "log"):
        (directory / sub).mkdir(parents=True)
    fsid = str(uuid.uuid4())
    port_v2, port_v1 = free_port(), free_port()
    conf = directory / "ceph.conf"
    conf.write_text(CEPH_CONF.format(fsid=fsid, port_v2=port_v2, port_v1=port_v1,
                                     dir=directory))
    mon_keyring, admin_keyring = directory / "mon.keyring", directory / "admin.keyring"

    def run(*argv):
        subprocess.run(argv, check=True, capture_output=True, timeout=60)
    run("ceph-authtool", "--create-keyring", str(mon_keyring), "--gen-key", "-n", "mon.",
        "--cap", "mon", "allow *")
    run("ceph-authtool", "--create-keyring", str(admin_keyring), "--gen-key",
        "-n", "client.admin", "--cap", "mon", "allow *", "--cap", "osd", "allow *")
    run("ceph-authtool", str(mon_keyring), "--import-keyring", str(admin_keyring))
    run("monmaptool", "--create", "--fsid", fsid, "--addv", "a",
        f"[v2:127.0.0.1:{port_v2},v1:127.0.0.1:{port_v1}]", str(directory / "monmap"))
    run("ceph-mon", "--conf", str(conf), "--mkfs", "-i", "a", "--monmap",
        str(directory / "monmap"), "--keyring", str(mon_keyring))
    log = open(directory / "mon.out", "w")
    process = subprocess.Popen(["ceph-mon", "--conf", str(conf), "-i", "a", "-f"],
                               stdout=log, stderr=subprocess.STDOUT)

    def in_quorum():
        return subprocess.run(["ceph", "--conf", str(conf), "--connect-timeout", "2",
                               "quorum_status"], capture_output=True, timeout=10
                              ).returncode == 0
    try:
        _wait_for(in_quorum, 30, "ceph-mon")
        yield str(conf), str(admin_keyring)
    finally:
        _stop(process)
        log.close()
