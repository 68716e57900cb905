"""Microversions of the v1 API: which one a request asks for, and the headers that say which one answered.

As in placement and nova, a client names the version in ``OpenStack-API-Version:
vm-resource-manager X.Y``. Without it a request is served at the minimum, the shape
every client written before microversions knows; ``latest`` means the maximum. A
version outside [minimum, maximum] is refused with 406, a value that is not ``X.Y``
with 400, both naming the header. Every response of the router carries the version it
was served at and ``Vary: OpenStack-API-Version`` (caches must key on it).

``VERSIONS`` lists every version, oldest first; each one is described in
``rest_api_version_history.rst`` next to this module (a test keeps the two together).
Handlers read the version of their call as ``call.version`` (a ``Version``) and compare
it with the version a change came with (``REASON_LIST``).
"""

import re
from typing import NamedTuple

from keyvrm import exception

SERVICE_TYPE = "vm-resource-manager"
HEADER = "OpenStack-API-Version"
LATEST = "latest"

VERSIONS = (
    "1.0",  # the v1 API as it was before microversions
    "1.1",  # events' and cycle outcomes' reasons as a list of entries (reasons, more_reasons), not text
    "1.2",  # every aggregate's outcome in a cycle (kind NOOP); an aggregate's own latest_outcome
    "1.3",  # POST /v1/aggregates/{name}/what-if: the plan HA would make now if given hosts died
    "1.4",  # GET /v1/aggregates/{name}/failover: the aggregate's failover tolerance against its reserve
    "1.5",  # GET /v1/aggregates/{name}/failover: its failure domains (racks), each planned failing as a whole
    "1.6",  # aggregates: lb_level (the LB dial, 1-5) shown and accepted, lb_level_overridden shown
    "1.7",  # aggregates: lb_persistence and lb_min_gain shown and accepted
    "1.8",  # POST /v1/hypervisors/{host}/drain, restore with failback, aggregates' failback; kinds drain, failback
    "1.9",  # recommendations (list and show) carry latest_operation, their newest journal line
    "1.10",  # GET /v1/vms; events since; hypervisors by AZ; sort_dir of hosts and aggregates; host_count
    "1.11",  # POST /v1/hypervisors/{host}/drain takes allow_cold (cold-migrate what cannot be live-migrated)
    "1.12",  # hypervisors: fencing steps with method and outcome, ISO 8601 times; service with seen_at
)

_NUMBER = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})")


class Version(NamedTuple):
    """A microversion; tuples compare as versions do (1.2 < 1.10)."""

    major: int
    minor: int

    def __str__(self):
        return "%d.%d" % self


def parse(text) -> Version:
    """The version ``text`` names (``X.Y``), or ``InvalidField`` naming the header."""
    number = _NUMBER.fullmatch(text)
    if number is None:
        raise exception.InvalidField(HEADER, "%r is not a microversion: expected %s X.Y (e.g. %s %s) or %s %s"
                                     % (text, SERVICE_TYPE, SERVICE_TYPE, VERSIONS[-1], SERVICE_TYPE, LATEST))
    return Version(int(number.group(1)), int(number.group(2)))


MIN_VERSION = parse(VERSIONS[0])
MAX_VERSION = parse(VERSIONS[-1])
# The version each change came with (handlers and schemas compare call.version with these).
REASON_LIST = parse("1.1")
OUTCOMES_OF_EVERY_AGGREGATE = parse("1.2")
WHAT_IF = parse("1.3")
FAILOVER = parse("1.4")
FAILURE_DOMAINS = parse("1.5")
LB_LEVEL = parse("1.6")
LB_PERSISTENCE = parse("1.7")
DRAIN = parse("1.8")
LATEST_OPERATION = parse("1.9")
PORTAL_LISTS = parse("1.10")
ALLOW_COLD = parse("1.11")
FENCING_RECORD = parse("1.12")


def _asked(value):
    """The version texts ``value`` (the header, possibly folded from several) names for this service."""
    asked = []
    for part in value.split(","):
        words = part.split()
        if not words or words[0].lower() != SERVICE_TYPE:
            continue  # another service's microversion
        if len(words) != 2:
            raise exception.InvalidField(HEADER, "%r: expected %s X.Y" % (part.strip(), SERVICE_TYPE))
        asked.append(words[1])
    return asked


def requested(headers) -> Version:
    """The version a request is served at, from its headers (the minimum when it names none).

    ``latest`` is the maximum; a version this server does not serve is refused
    (``MicroversionNotAcceptable``, 406), a malformed or ambiguous header too (``InvalidField``, 400).
    """
    asked = _asked(headers.get(HEADER, ""))
    if not asked:
        return MIN_VERSION
    if len(set(t.lower() for t in asked)) > 1:
        raise exception.InvalidField(HEADER, "%s is named with different versions: %s"
                                     % (SERVICE_TYPE, ", ".join(asked)))
    if asked[0].lower() == LATEST:
        return MAX_VERSION
    version = parse(asked[0])
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise exception.MicroversionNotAcceptable(
            "microversion %s is not served here: this server serves %s %s to %s"
            % (version, SERVICE_TYPE, MIN_VERSION, MAX_VERSION))
    return version


def response_headers(version) -> dict:
    """The headers that tell a client (and caches) the version a response was served at; None: not known."""
    headers = {"Vary": HEADER}
    if version is not None:
        headers[HEADER] = "%s %s" % (SERVICE_TYPE, version)
    return headers
