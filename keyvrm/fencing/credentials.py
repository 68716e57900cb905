"""Loads per-hypervisor fencing credentials (BMC and Ceph client addresses) from a YAML file.

File layout (the path is a deployment config option; it is passed in here)::

    hosts:
      compute-1:
        bmc:
          protocol: ipmi          # ipmi | redfish
          address: 10.0.0.11
          port: 623               # default 623 (ipmi), 443 (redfish)
          username: admin
          password: secret
          verify_tls: true        # redfish only; default true
          system_id: /redfish/v1/Systems/1   # redfish only; default: the only system
          auth: basic             # redfish only: basic | session | auto; default auto
          scheme: https           # redfish only: https | http; default https
        ceph:
          client_addresses: ["10.0.1.11"]    # IP (whole host), IP:port/nonce

Every error names the field (``hosts.compute-1.bmc.port``). The password is held in a
:class:`Secret`, which never shows its value in ``repr``/``str``.
"""

import dataclasses
import ipaddress
from typing import Optional

import yaml

from keyvrm import exception

PROTOCOL_IPMI = "ipmi"
PROTOCOL_REDFISH = "redfish"
DEFAULT_PORTS = {PROTOCOL_IPMI: 623, PROTOCOL_REDFISH: 443}
REDFISH_AUTH_MODES = ("basic", "session", "auto")


class Secret:
    """A string that is never printed: ``reveal()`` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        """The secret value, for handing to a client library only."""
        return self._value

    def __repr__(self):
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self):
        return hash(self._value)


@dataclasses.dataclass(frozen=True)
class BmcCredentials:
    """How to reach one host's BMC."""

    protocol: str
    address: str
    port: int
    username: str
    password: Secret
    verify_tls: bool = True
    system_id: Optional[str] = None
    auth: str = "auto"
    scheme: str = "https"


@dataclasses.dataclass(frozen=True)
class HostCredentials:
    """Fencing data of one hypervisor; a part is None when the file does not give it."""

    host: str
    bmc: Optional[BmcCredentials] = None
    ceph_client_addresses: tuple = ()


def _require(mapping, key, field):
    if key not in mapping or mapping[key] in (None, ""):
        raise exception.InvalidField(field, "is required")
    return mapping[key]


def _mapping(value, field):
    if not isinstance(value, dict):
        raise exception.InvalidField(field, "must be a mapping")
    return value


def _string(value, field):
    if not isinstance(value, str) or not value:
        raise exception.InvalidField(field, "must be a non-empty string")
    return value


def _bmc(raw, field):
    raw = _mapping(raw, field)
    protocol = _require(raw, "protocol", f"{field}.protocol")
    if protocol not in DEFAULT_PORTS:
        raise exception.InvalidField(f"{field}.protocol",
                                     f"must be one of {sorted(DEFAULT_PORTS)}")
    address = _string(_require(raw, "address", f"{field}.address"), f"{field}.address")
    port = raw.get("port", DEFAULT_PORTS[protocol])
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise exception.InvalidField(f"{field}.port", "must be an integer in 1..65535")
    username = _string(_require(raw, "username", f"{field}.username"), f"{field}.username")
    password = raw.get("password")
    if not isinstance(password, str) or not password:
        raise exception.InvalidField(f"{field}.password", "must be a non-empty string")
    verify_tls = raw.get("verify_tls", True)
    if not isinstance(verify_tls, bool):
        raise exception.InvalidField(f"{field}.verify_tls", "must be true or false")
    system_id = raw.get("system_id")
    if system_id is not None:
        _string(system_id, f"{field}.system_id")
    auth = raw.get("auth", "auto")
    if auth not in REDFISH_AUTH_MODES:
        raise exception.InvalidField(f"{field}.auth", f"must be one of {REDFISH_AUTH_MODES}")
    scheme = raw.get("scheme", "https")
    if scheme not in ("https", "http"):
        raise exception.InvalidField(f"{field}.scheme", "must be https or http")
    return BmcCredentials(protocol, address, port, username, Secret(password),
                          verify_tls, system_id, auth, scheme)


def _client_address(value, field):
    """Accept ``IP`` (whole host, stored as ``IP:0/0``) or ``IP:port/nonce``."""
    text = _string(value, field)
    ip_text, sep, rest = text.rpartition(":") if "/" in text else (text, "", "")
    try:
        ipaddress.ip_address(ip_text.strip("[]"))
    except ValueError:
        raise exception.InvalidField(field, f"not an IP or IP:port/nonce: {text!r}")
    if not sep:
        return f"{text}:0/0"
    port, _, nonce = rest.partition("/")
    if not (port.isdigit() and nonce.isdigit()):
        raise exception.InvalidField(field, f"not an IP or IP:port/nonce: {text!r}")
    return text


def _ceph(raw, field):
    raw = _mapping(raw, field)
    addresses = _require(raw, "client_addresses", f"{field}.client_addresses")
    if not isinstance(addresses, list):
        raise exception.InvalidField(f"{field}.client_addresses", "must be a list")
    return tuple(_client_address(a, f"{field}.client_addresses[{i}]")
                 for i, a in enumerate(addresses))


def parse_credentials(document) -> dict:
    """Validate a parsed YAML document; return host name -> HostCredentials."""
    document = _mapping(document, "(top level)")
    hosts = _mapping(_require(document, "hosts", "hosts"), "hosts")
    result = {}
    for host, raw in hosts.items():
        field = f"hosts.{host}"
        raw = _mapping(raw, field)
        unknown = set(raw) - {"bmc", "ceph"}
        if unknown:
            raise exception.InvalidField(f"{field}.{sorted(unknown)[0]}", "unknown key")
        bmc = _bmc(raw["bmc"], f"{field}.bmc") if "bmc" in raw else None
        ceph = _ceph(raw["ceph"], f"{field}.ceph") if "ceph" in raw else ()
        result[str(host)] = HostCredentials(str(host), bmc, ceph)
    return result


def load_credentials(path: str) -> dict:
    """Read and validate the credentials file at ``path``; host name -> HostCredentials."""
    with open(path, encoding="utf-8") as stream:
        try:
            document = yaml.safe_load(stream)
        except yaml.YAMLError as exc:
            raise exception.InvalidField(path, f"not valid YAML: {exc}")
    return parse_credentials(document)


def ceph_addresses_of(credentials: dict):
    """Callable host -> the host's Ceph client addresses in ``credentials`` (empty when it has none)."""
    def addresses(host):
        entry = credentials.get(host)
        return entry.ceph_client_addresses if entry is not None else ()
    return addresses
