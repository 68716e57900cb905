"""Work of other runs on hosts an HA run just fenced: it cannot progress, so it is ended before planning.

A dead host is never "busy" (SPEC 3.3 reads: nothing new is planned on a host that
unfinished work touches) because of work that cannot progress: a migration to or from a
dead host never ends by itself. Detection fences it like any other; then, before its VMs
are planned, ``settle`` ends what other runs hold on it: recommendations not started yet
(``created``, ``manual_action``) are cancelled ("target X failed ..." is what HA's round 2
re-plans, see ``flows.ha``), and running ones are waited for: a run sees at its next poll
that its target (or, live, its source) is down or fenced (``executor.progress``) and ends,
or cancels itself at its next prepare after a retry delay or a tier wait. The evacuations
other HA runs have in flight in the same aggregate are waited for too: their targets are
busy until they end, and a host that dies while another host's VMs are evacuated (the
target of one of them, say) may have no other target left. So the wait is bounded by one
tier wait, one retry delay and two polls; a run still going then keeps its VM out of the
plan and its target busy.
"""

from __future__ import annotations

import dataclasses

from oslo_log import log as logging

from keyvrm.db import api as db_api
from keyvrm.model import states

LOG = logging.getLogger(__name__)

_UNSTARTED = (states.RecommendationStatus.CREATED, states.RecommendationStatus.MANUAL_ACTION)


@dataclasses.dataclass(frozen=True)
class Settled:
    """What ``settle`` found: recommendations cancelled, waited for until they ended, still running."""

    cancelled: tuple = ()
    ended: tuple = ()
    running: tuple = ()

    @property
    def found_any(self) -> bool:
        """Whether other runs held work on the hosts (the cycle's snapshot predates how it ended)."""
        return bool(self.cancelled or self.ended or self.running)


def _cancel_reason(rec, hosts, own_event_id) -> str:
    role, host = ("target", rec["target_host"]) if rec["target_host"] in hosts else ("source", rec["source_host"])
    return "%s %s failed: HA event %s fenced it" % (role, host, own_event_id)


def wait_bound_s(settings) -> float:
    """How long ``settle`` waits for running work on a fenced host: one tier wait, one retry delay, two polls."""
    return settings.tier_wait_s + settings.retry_delay_s + 2 * settings.poll_interval_s


def settle(db, clock, hosts, own_event_id, aggregate, settings) -> Settled:
    """End the work of other runs on the fenced ``hosts`` of ``aggregate`` (module docstring); what was found.

    ``settings`` are the executor's (its poll interval, retry delay and tier wait bound
    the wait).
    """
    hosts = sorted(hosts)
    cancelled = []
    for rec in db_api.work_touching_hosts(db, hosts, _UNSTARTED, own_event_id):
        if db_api.cancel_unstarted(db, rec["id"], _cancel_reason(rec, hosts, own_event_id)):
            cancelled.append(rec["id"])

    def still_running():
        # other runs' work on the hosts, and their evacuations in flight in the aggregate
        return db_api.work_touching_hosts(db, hosts, (states.RecommendationStatus.RUNNING,), own_event_id,
                                          evacuations_of_aggregate=aggregate)

    running = still_running()
    waited = {rec["id"] for rec in running}
    deadline_s = clock.time() + wait_bound_s(settings)
    while running and clock.time() < deadline_s:
        clock.sleep(min(settings.poll_interval_s, max(0.0, deadline_s - clock.time())))
        running = still_running()
    still = tuple(sorted(rec["id"] for rec in running))
    if still:
        LOG.warning("hosts %s: %d recommendations of other runs still run on them or in aggregate %s after %.0f s;"
                    " their VMs and targets stay out of this plan", ", ".join(hosts), len(still), aggregate,
                    wait_bound_s(settings))
    return Settled(tuple(cancelled), tuple(sorted(waited - set(still))), still)
