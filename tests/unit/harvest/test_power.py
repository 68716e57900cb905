"""BMC power reads of a harvest: only stale hosts are asked, the guard bounds them, a silent BMC is unreachable."""

import threading

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.harvest import power
from keyvrm.model import snapshot as m
from tests.unit.planning import builders as b

STALE_S = 10.0


class Bmcs:
    """``fencer_of``: host -> an object whose ``power_state`` answers from ``states`` (records who was asked)."""

    def __init__(self, states, hang=()):
        self.states, self.hang, self.asked = states, set(hang), []
        self.release = threading.Event()

    def __call__(self, host):
        if host not in self.states and host not in self.hang:
            raise LookupError("no BMC credentials for host %s" % host)
        return self

    def power_state(self, host):
        self.asked.append(host)
        if host in self.hang:
            self.release.wait(5)
        state = self.states.get(host)
        if isinstance(state, Exception):
            raise state
        return state


def _with_power(hosts, bmcs, failed_sources=(), only=None, timeout_s=2.0, handled=frozenset()):
    snap = b.snapshot(hosts, failed_sources=failed_sources)
    stale = power.stale_hosts(snap, STALE_S, b.NOW_S) & (set(only) if only is not None else {h.name for h in hosts})
    return power.with_power(snap, bmcs, stale, max_condemned_share=0.5, timeout_s=timeout_s, handled=handled)


def _power_of(snapshot):
    return {h.name: h.power for h in snapshot.hypervisors}


def test_only_hosts_whose_heartbeat_is_stale_are_asked():
    hosts = [b.host("dead", heartbeat_age_s=12.0), b.host("alive", heartbeat_age_s=3.0), b.host("other")]
    bmcs = Bmcs({"dead": "off", "alive": "on", "other": "on"})
    assert _power_of(_with_power(hosts, bmcs)) == {"dead": "off", "alive": None, "other": None}
    assert bmcs.asked == ["dead"]


def test_a_bmc_that_fails_or_does_not_answer_in_time_is_unreachable_and_one_without_credentials_unasked():
    hosts = [b.host(name, heartbeat_age_s=60.0) for name in ("refuses", "hangs", "unknown")] + [
        b.host("ok%d" % i) for i in range(5)]
    bmcs = Bmcs({"refuses": DriverUnavailable("no route to host")}, hang=("hangs",))
    try:
        got = _power_of(_with_power(hosts, bmcs, timeout_s=0.3))
    finally:
        bmcs.release.set()
    assert (got["refuses"], got["hangs"], got["unknown"]) == ("unreachable", "unreachable", None)


def test_no_bmc_is_asked_where_the_mass_failure_guard_would_fence_nothing():
    # every heartbeat stale at once (the heartbeat store lost its agents): a BMC storm would prove nothing
    hosts = [b.host("h%d" % i, heartbeat_age_s=60.0) for i in range(4)]
    bmcs = Bmcs({h.name: "on" for h in hosts})
    assert set(_power_of(_with_power(hosts, bmcs)).values()) == {None}
    assert bmcs.asked == []


def test_nothing_is_asked_when_the_heartbeat_source_failed_or_for_hosts_outside_only():
    hosts = [b.host("dead", heartbeat_age_s=60.0), b.host("also", heartbeat_age_s=60.0)] + [
        b.host("ok%d" % i) for i in range(4)]
    bmcs = Bmcs({"dead": "off", "also": "off"})
    assert _power_of(_with_power(hosts, bmcs, failed_sources=(m.SOURCE_HEARTBEAT,)))["dead"] is None
    assert _power_of(_with_power(hosts, bmcs, only={"dead"})) == {
        "dead": "off", "also": None, **{"ok%d" % i: None for i in range(4)}}


def test_hosts_an_ha_run_handled_are_neither_asked_nor_counted_against_the_guard():
    # two dead hosts already in maintenance and a third newly silent of four: as the guard, count only the new one
    hosts = [b.host(name, heartbeat_age_s=600.0) for name in ("done1", "done2", "new")] + [b.host("ok")]
    bmcs = Bmcs({"done1": "off", "done2": "off", "new": "off"})
    got = _power_of(_with_power(hosts, bmcs, handled={"done1", "done2"}))
    assert got == {"done1": None, "done2": None, "new": "off", "ok": None} and bmcs.asked == ["new"]
