"""Credentials file loading: validation names the field; the password never prints."""

import pytest
import yaml

from keyvrm import exception
from keyvrm.fencing import credentials

PASSWORD = "Very-Secret-42"


def _ipmi(**changes):
    bmc = {"protocol": "ipmi", "address": "10.0.0.11", "username": "admin",
           "password": PASSWORD}
    bmc.update(changes)
    return {"hosts": {"compute-1": {"bmc": bmc}}}


def test_ipmi_entry_gets_the_default_port_and_hides_the_password():
    host = credentials.parse_credentials(_ipmi())["compute-1"]

    assert host.bmc.port == 623
    assert host.bmc.password.reveal() == PASSWORD
    assert PASSWORD not in repr(host) and PASSWORD not in str(host)
    assert PASSWORD not in repr(host.bmc.password) and PASSWORD not in str(host.bmc)


def test_redfish_entry_keeps_tls_auth_and_system_id():
    doc = _ipmi(protocol="redfish", verify_tls=False, auth="session",
                system_id="/redfish/v1/Systems/1")
    bmc = credentials.parse_credentials(doc)["compute-1"].bmc

    assert (bmc.port, bmc.verify_tls, bmc.auth, bmc.scheme) == (443, False, "session", "https")
    assert bmc.system_id == "/redfish/v1/Systems/1"


@pytest.mark.parametrize("changes, field", [
    ({"protocol": "snmp"}, "hosts.compute-1.bmc.protocol"),
    ({"port": 70000}, "hosts.compute-1.bmc.port"),
    ({"port": "623"}, "hosts.compute-1.bmc.port"),
    ({"username": ""}, "hosts.compute-1.bmc.username"),
    ({"password": None}, "hosts.compute-1.bmc.password"),
    ({"verify_tls": "yes"}, "hosts.compute-1.bmc.verify_tls"),
    ({"auth": "digest"}, "hosts.compute-1.bmc.auth"),
    ({"scheme": "ftp"}, "hosts.compute-1.bmc.scheme"),
])
def test_bad_bmc_field_is_refused_naming_it(changes, field):
    with pytest.raises(exception.InvalidField) as error:
        credentials.parse_credentials(_ipmi(**changes))

    assert error.value.field == field


def test_refusal_of_a_bad_field_does_not_echo_the_password():
    with pytest.raises(exception.InvalidField) as error:
        credentials.parse_credentials(_ipmi(port=0))

    assert PASSWORD not in str(error.value)


def test_missing_address_is_refused_naming_it():
    doc = _ipmi()
    del doc["hosts"]["compute-1"]["bmc"]["address"]

    with pytest.raises(exception.InvalidField) as error:
        credentials.parse_credentials(doc)

    assert error.value.field == "hosts.compute-1.bmc.address"


def test_ceph_addresses_whole_ip_becomes_a_host_wide_entry():
    doc = {"hosts": {"compute-1": {"ceph": {
        "client_addresses": ["10.0.1.11", "10.0.1.12:6800/77"]}}}}

    host = credentials.parse_credentials(doc)["compute-1"]

    assert host.ceph_client_addresses == ("10.0.1.11:0/0", "10.0.1.12:6800/77")
    assert host.bmc is None


# ids without ':' (gabbi's pytest plugin takes any test id with a colon for one of its own)
@pytest.mark.parametrize("address", ["not-an-ip", "10.0.0.0/24", "10.0.1.12:x/1"],
                         ids=["not-an-ip", "a-network", "a-bad-nonce"])
def test_bad_ceph_address_is_refused_naming_its_index(address):
    doc = {"hosts": {"compute-1": {"ceph": {"client_addresses": ["10.0.1.11", address]}}}}

    with pytest.raises(exception.InvalidField) as error:
        credentials.parse_credentials(doc)

    assert error.value.field == "hosts.compute-1.ceph.client_addresses[1]"


def test_unknown_host_key_is_refused():
    with pytest.raises(exception.InvalidField) as error:
        credentials.parse_credentials({"hosts": {"compute-1": {"bcm": {}}}})

    assert error.value.field == "hosts.compute-1.bcm"


def test_file_is_loaded_from_the_given_path(tmp_path):
    path = tmp_path / "creds.yaml"
    path.write_text(yaml.safe_dump(_ipmi()))

    assert set(credentials.load_credentials(str(path))) == {"compute-1"}


def test_file_that_is_not_yaml_is_refused(tmp_path):
    path = tmp_path / "creds.yaml"
    path.write_text("hosts: [unclosed")

    with pytest.raises(exception.InvalidField):
        credentials.load_credentials(str(path))
