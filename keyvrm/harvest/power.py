"""BMC power reads for the hosts whose heartbeat went stale: the proof HA's fast verdict rests on.

A stale heartbeat alone may be a broken heartbeat path; a BMC that reports the host
powered off proves it dead (SPEC 5.1, ``keyvrm.planning.ha``). So, with BMC fencing on,
each harvest asks the BMC of every host whose heartbeat is stale -- and only those, so
the cost follows the failures, not the region -- and records the answer on the host
(``Hypervisor.power``: ``on``, ``off`` or ``unreachable``). Hosts an HA run already
handled are not asked and, as in the guard, not counted; hosts of an aggregate where more
hosts are newly stale than the mass-failure guard lets HA fence are not asked: the guard
would fence none of them whatever their BMCs say (a heartbeat store that lost every
agent at once must not turn into a BMC storm). A host with no BMC credentials is not
asked. The reads run in parallel; one that has not answered within ``timeout_s`` is
``unreachable``.
"""

from __future__ import annotations

import concurrent.futures
from typing import Callable, Optional

from oslo_log import log as logging

from keyvrm.drivers.fencing.base import POWER_UNREACHABLE
from keyvrm.model import snapshot as m

LOG = logging.getLogger(__name__)

MAX_PARALLEL_READS = 16


def stale_hosts(snapshot, stale_after_s: float, now_s: float) -> set:
    """Hosts whose heartbeat was read and is older than ``stale_after_s`` (none if the source failed)."""
    if not snapshot.source_ok(m.SOURCE_HEARTBEAT):
        return set()
    return {h.name for h in snapshot.hypervisors
            if h.heartbeat_at is not None and now_s - h.heartbeat_at > stale_after_s}


def hosts_to_ask(snapshot, stale: set, max_condemned_share: float, handled=frozenset()) -> list:
    """The stale hosts not ``handled`` of aggregates where the mass-failure guard would still let HA fence them."""
    asked = set()
    for aggregate in snapshot.aggregates:
        members = set(aggregate.hosts)
        stale_here = (stale & members) - set(handled)
        if stale_here and (len(stale_here) <= 1 or len(stale_here) <= max_condemned_share * len(members)):
            asked |= stale_here
    return sorted(asked)


def _read(fencer_of, host) -> Optional[str]:
    try:
        fencer = fencer_of(host)
    except LookupError:
        return None  # no BMC known for the host: it has no power proof to give
    try:
        return fencer.power_state(host)
    except Exception as exc:  # a BMC that fails to answer proves nothing
        LOG.warning("BMC of %s did not report its power state: %s", host, exc)
        return POWER_UNREACHABLE


def read_power(fencer_of: Callable, hosts, timeout_s: float) -> dict:
    """{host: on | off | unreachable} from each host's BMC (``fencer_of(host).power_state``), in parallel."""
    hosts = list(hosts)
    if not hosts:
        return {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_READS, len(hosts)),
                                                 thread_name_prefix="bmc-read")
    try:
        futures = {pool.submit(_read, fencer_of, host): host for host in hosts}
        done, pending = concurrent.futures.wait(futures, timeout=timeout_s)
        states = {futures[f]: f.result() for f in done}
        states.update({futures[f]: POWER_UNREACHABLE for f in pending})
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return {host: state for host, state in states.items() if state is not None}


def with_power(snapshot, fencer_of: Callable, stale, *, max_condemned_share: float, timeout_s: float,
               handled=frozenset()):
    """``snapshot`` with ``power`` set on the ``stale`` hosts worth asking (never ``handled`` ones)."""
    states = read_power(fencer_of, hosts_to_ask(snapshot, set(stale), max_condemned_share, handled), timeout_s)
    if not states:
        return snapshot
    LOG.info("BMC power of hosts with a stale heartbeat: %s",
             ", ".join("%s %s" % item for item in sorted(states.items())))
    return m.replace(snapshot, hypervisors=tuple(
        m.replace(h, power=states[h.name]) if h.name in states else h for h in snapshot.hypervisors))
