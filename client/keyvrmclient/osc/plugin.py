"""The OSC plugin hooks: how `openstack` builds the KeyVRM client and which API versions exist."""

from osc_lib import utils

from keyvrmclient import v1

API_NAME = "keyvrm"
API_VERSION_OPTION = "os_keyvrm_api_version"
DEFAULT_API_VERSION = "1"
API_VERSIONS = {"1": "keyvrmclient.v1.Client"}


def make_client(instance):
    """A v1 client on OSC's session, for its region and interface (catalog type vm-resource-manager).

    With ``--os-auth-type none --os-endpoint URL`` the endpoint is that URL.
    """
    return v1.Client(session=instance.session, region_name=instance.region_name,
                     interface=instance.interface)


def build_option_parser(parser):
    """Add ``--os-keyvrm-api-version`` to the global options."""
    parser.add_argument("--os-keyvrm-api-version", metavar="<keyvrm-api-version>",
                        default=utils.env("OS_KEYVRM_API_VERSION", default=DEFAULT_API_VERSION),
                        help="KeyVRM API version, default=%s (Env: OS_KEYVRM_API_VERSION)" % DEFAULT_API_VERSION)
    return parser
