"""The OSC plugin hooks: how `openstack` builds the KeyVRM client and which API versions exist."""

from osc_lib import exceptions
from osc_lib import utils

from keyvrmclient import v1

API_NAME = "keyvrm"
API_VERSION_OPTION = "os_keyvrm_api_version"
# "1": negotiate the highest microversion both this CLI and the server know; "1.Y": send that one.
DEFAULT_API_VERSION = v1.API_VERSION
API_VERSIONS = dict({DEFAULT_API_VERSION: "keyvrmclient.v1.Client"},
                    **{version: "keyvrmclient.v1.Client" for version in v1.KNOWN_VERSIONS})


def check_api_version(check_version):
    """Accept ``1`` (negotiate) or a microversion the commands know how to show; raise for anything else.

    Returns True: OSC's own check against ``API_VERSIONS`` is then not needed.
    """
    if check_version not in API_VERSIONS:
        raise exceptions.UnsupportedVersion(
            "--os-keyvrm-api-version: %r is not a KeyVRM API version this client knows; use %s"
            % (check_version, ", ".join(API_VERSIONS)))
    return True


def make_client(instance):
    """A v1 client on OSC's session, for its region and interface (catalog type vm-resource-manager).

    With ``--os-auth-type none --os-endpoint URL`` the endpoint is that URL. The
    microversion is ``--os-keyvrm-api-version`` when it names one, else negotiated.
    """
    version = instance._api_version[API_NAME]
    return v1.Client(session=instance.session, region_name=instance.region_name,
                     interface=instance.interface,
                     api_version=None if version == DEFAULT_API_VERSION else version)


def build_option_parser(parser):
    """Add ``--os-keyvrm-api-version`` to the global options."""
    parser.add_argument("--os-keyvrm-api-version", metavar="<keyvrm-api-version>",
                        default=utils.env("OS_KEYVRM_API_VERSION", default=DEFAULT_API_VERSION),
                        help="KeyVRM API version: %s (the default) negotiates the highest microversion this"
                             " client and the server know; %s sends that microversion"
                             " (Env: OS_KEYVRM_API_VERSION)"
                             % (DEFAULT_API_VERSION, " or ".join(v1.KNOWN_VERSIONS)))
    return parser
