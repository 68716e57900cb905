"""Schema of an aggregate's failover capacity (GET /v1/aggregates/{name}/failover, microversion 1.4; 1.5 adds racks)."""

from keyvrm.api import microversion
from keyvrm.api.schemas import common
from keyvrm.api.schemas import event
from keyvrm.api.schemas import reason

AT_RISK = common.obj({
    "hosts": {"type": "array", "items": common.STRING,
              "description": "the hosts failing together (one host, or a pair when every single host passed)"},
    "vms_without_target": {"type": "array", "items": event.NO_TARGET_ENTRY,
                           "description": "their evacuable VMs that would find no target, with the check"
                                          " that rejected each candidate host"}})
FAILURE_DOMAIN = common.obj({
    "name": dict(common.STRING, description="the domain: ha_failure_domain of a rack aggregate, or what the"
                 " aggregate's ha_failure_domain_pattern found in the host names"),
    "hosts": {"type": "array", "items": common.STRING,
              "description": "the aggregate's hosts in the domain, planned failing together"},
    "vms_without_target": {"type": "array", "items": event.NO_TARGET_ENTRY,
                           "description": "their evacuable VMs that would find no target (empty: the domain's"
                                          " failure is absorbed)"}})
_FIELDS = {
    "aggregate": common.STRING, "snapshot_id": common.INTEGER, "taken_at": common.TIMESTAMP,
    "computed_at": dict(common.TIMESTAMP, description="when this answer was planned (now)"),
    "tolerance": dict(common.INTEGER, description="how many hosts may fail together with every evacuable VM"
                      " placed, searched up to max_k"),
    "max_k": dict(common.INTEGER, description="the largest k searched: [ha] failover_max_k, at most 2"),
    "exact": dict(common.BOOLEAN, description="false when k = 2 was searched among the worst hosts' pairs"
                  " only (an aggregate of more than 8 hosts): the tolerance is then an upper bound"),
    "reserve": dict(common.INTEGER, description="the aggregate's ha_failover_reserve (0: none)"),
    "below_reserve": dict(common.BOOLEAN, description="tolerance < reserve: the cycle warns"
                          " insufficient_failover_capacity"),
    "hosts": dict(common.INTEGER, description="hosts analysed (those an HA run already handles are left out)"),
    "at_risk": {"type": "array", "items": AT_RISK,
                "description": "each host (or pair) whose failure leaves VMs without a target"},
    "ha_runs": dict(common.BOOLEAN, description="whether a cycle runs HA on this aggregate now"),
    "ha_not_run": dict(common.nullable(reason.ENTRY), description="why not (disabled, noop,"
                       " storage_undeclared)")}
_DOMAIN_FIELDS = {
    "failure_domains": {"type": "array", "items": FAILURE_DOMAIN,
                        "description": "every failure domain (rack) with a host of the aggregate, by name, each"
                                       " planned failing as a whole whatever the tolerance; empty without labels."
                                       " The tolerance and below_reserve stay about hosts"},
    "failure_domain_error": dict(common.OPT_STRING, description="why no domain was analysed: the aggregate's"
                                 " ha_failure_domain_pattern is not a regular expression; null otherwise")}


def _failover(version):
    fields = dict(_FIELDS, **_DOMAIN_FIELDS) if version >= microversion.FAILURE_DOMAINS else _FIELDS
    return common.obj({"failover": common.obj(fields)})


FAILOVER = reason.versioned(_failover)
