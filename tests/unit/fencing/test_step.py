"""The HA fencing step: a host is fenced only when every enabled fencer confirmed."""

import dataclasses

import pytest

from keyvrm.fencing import base
from keyvrm.fencing import step
from keyvrm.model import settings


class ScriptedFencer(base.Fencer):
    """Answers a fixed verdict (or raises) and records the hosts it was asked to fence."""

    def __init__(self, name, confirmed=True, error=None, clock=None):
        clock = clock or (lambda: 100.0)
        super().__init__(clock, lambda s: None)
        self.name = name
        self._confirmed = confirmed
        self._error = error
        self.hosts = []

    def _fence(self, host):
        self.hosts.append(host)
        if self._error:
            raise self._error
        return self._confirmed, "scripted"


def _config(ceph=False, bmc=False, nova=False):
    return dataclasses.replace(settings.AppConfig(), ha_fence_ceph=ceph, ha_fence_bmc=bmc,
                               ha_fence_nova=nova)


def test_no_enabled_fencer_is_no_fencer_and_not_fenced():
    outcome = step.fence_host("compute-1", _config(), nova=ScriptedFencer("nova"))

    assert outcome.reason == step.NO_FENCER
    assert not outcome.fenced
    assert outcome.results == ()


def test_all_enabled_fencers_confirmed_is_fenced():
    ceph, bmc, nova = ScriptedFencer("ceph"), ScriptedFencer("ipmi"), ScriptedFencer("nova")

    outcome = step.fence_host("compute-1", _config(True, True, True), ceph=ceph,
                              bmc=lambda host: bmc, nova=nova)

    assert outcome.reason == step.FENCED and outcome.fenced
    assert [r.fencer for r in outcome.results] == ["ceph", "ipmi", "nova"]


@pytest.mark.parametrize("failing", ["ceph", "bmc", "nova"])
@pytest.mark.parametrize("how", ["unconfirmed", "raises"])
def test_any_enabled_fencer_not_confirming_means_not_fenced(failing, how):
    fencers = {}
    for name in ("ceph", "bmc", "nova"):
        if name != failing:
            fencers[name] = ScriptedFencer(name)
        elif how == "unconfirmed":
            fencers[name] = ScriptedFencer(name, confirmed=False)
        else:
            fencers[name] = ScriptedFencer(name, error=RuntimeError("peer gone"))
    bmc = fencers["bmc"]

    outcome = step.fence_host("compute-1", _config(True, True, True), ceph=fencers["ceph"],
                              bmc=lambda host: bmc, nova=fencers["nova"])

    assert outcome.reason == step.FENCING_FAILED
    assert not outcome.fenced
    assert len(outcome.results) == 3, "every fencer has a result even after one failed"
    assert fencers["ceph"].hosts == ["compute-1"] and bmc.hosts == ["compute-1"], "both hard fencers run"
    unconfirmed = [r.fencer for r in outcome.results if not r.confirmed]
    if failing == "nova":
        assert unconfirmed == ["nova"]
    else:  # Nova is told a host is down only once the hard fencers proved it
        assert unconfirmed == [failing, "nova"] and fencers["nova"].hosts == []
        assert outcome.results[-1].message.startswith("not run: a hard fencer did not confirm")


def test_enabled_fencer_without_a_driver_is_a_failed_fence():
    outcome = step.fence_host("compute-1", _config(bmc=True, nova=True),
                              nova=ScriptedFencer("nova"))

    assert outcome.reason == step.FENCING_FAILED
    failed = [r for r in outcome.results if not r.confirmed]
    assert failed[0].fencer == "bmc"
    assert "no bmc fencer is configured" in failed[0].message


def test_bmc_lookup_failure_is_a_failed_fence_with_its_time():
    times = iter([10.0, 12.5])

    def no_bmc(host):
        raise LookupError(f"no BMC credentials for host {host}")

    outcome = step.fence_host("compute-1", _config(bmc=True), bmc=no_bmc,
                              clock=lambda: next(times))

    result = outcome.results[0]
    assert not result.confirmed and "no BMC credentials" in result.message
    assert result.duration_s == 2.5


def test_disabled_fencers_are_not_run():
    ceph, nova = ScriptedFencer("ceph"), ScriptedFencer("nova")

    step.fence_host("compute-1", _config(nova=True), ceph=ceph, nova=nova)

    assert ceph.hosts == [] and nova.hosts == ["compute-1"]


def test_outcome_with_a_forged_fenced_reason_but_unconfirmed_result_is_not_fenced():
    unconfirmed = base.FenceResult("ipmi", "compute-1", False, "timeout", 0.0, 60.0)

    assert not step.FencingOutcome("compute-1", step.FENCED, (unconfirmed,)).fenced
    assert not step.FencingOutcome("compute-1", step.FENCED, ()).fenced
