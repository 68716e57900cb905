"""Shared helpers of the fencing functional tests: credentials files and a fake clock."""

import yaml

from keyvrm.fencing import credentials
from tests.functional.fencing import conftest


class FakeClock:
    """Time that moves only when the code under test sleeps."""

    def __init__(self, start_s=1_000_000.0):
        self.now_s = start_s

    def __call__(self):
        return self.now_s

    def sleep(self, seconds):
        self.now_s += seconds


def write_credentials(tmp_path, hosts):
    """Write a credentials YAML file for ``hosts`` and load it back."""
    path = tmp_path / "fencing-credentials.yaml"
    path.write_text(yaml.safe_dump({"hosts": hosts}))
    return credentials.load_credentials(str(path))


def redfish_host(port, password=conftest.PASSWORD, auth="basic"):
    return {"bmc": {"protocol": "redfish", "address": "127.0.0.1", "port": port,
                    "scheme": "http", "username": conftest.USER, "password": password,
                    "verify_tls": False, "auth": auth,
                    "system_id": f"/redfish/v1/Systems/{conftest.SYSTEM_UUID}"}}


def ipmi_host(port, password=conftest.PASSWORD):
    return {"bmc": {"protocol": "ipmi", "address": "127.0.0.1", "port": port,
                    "username": conftest.USER, "password": password}}
