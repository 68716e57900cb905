"""HA detection: the decision matrix, the mass-failure guard and fencer checks."""

import pytest

from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import ha
from keyvrm.planning import reasons
from tests.unit.planning import builders as b

STALE_S = 30.0


def _detect(hosts, app=None, failed_sources=(), **kwargs):
    snap = b.snapshot(hosts, failed_sources=failed_sources)
    return ha.detect_failures(snap, app or AppConfig(), b.AGG, heartbeat_stale_after_s=STALE_S,
                              now_s=b.NOW_S, **kwargs)


def _healthy(n):
    return [b.host("ok%d" % i) for i in range(n)]


@pytest.mark.parametrize("state,age,down,verdict", [
    (m.SERVICE_DOWN, 120.0, (), ha.FAILED),
    (m.SERVICE_UP, 5.0, ("bond0",), ha.UNSAFE),
    (m.SERVICE_DOWN, 5.0, (), "host_alive_service_down"),
    (m.SERVICE_UP, 120.0, (), "heartbeat_path_broken"),
    (m.SERVICE_UP, 5.0, ("eth9",), ha.HEALTHY),
    (m.SERVICE_DOWN, None, (), "insufficient_evidence"),
])
def test_decision_matrix(state, age, down, verdict):
    bad = b.host("bad", state=state, heartbeat_age_s=age, down_interfaces=down)
    app = AppConfig(ha_fence_interfaces=("bond0",))
    result = _detect([bad] + _healthy(4), app)
    assert result.verdicts[0].verdict == verdict
    assert (result.to_fence == ("bad",)) is (verdict in ha.CONDEMNED_VERDICTS)


@pytest.mark.parametrize("age_s,verdict", [
    (STALE_S + 1.0, ha.HOST_SILENT),  # just stale: a dead host reads so until Nova's verdict
    (STALE_S + 60.0, ha.HOST_SILENT),  # stale for exactly service_down_time: the verdict may still come
    (STALE_S + 61.0, ha.HEARTBEAT_PATH_BROKEN),  # Nova would have shown a dead host down by now
])
def test_a_stale_heartbeat_with_nova_compute_up_is_a_silent_host_until_nova_s_verdict_is_due(age_s, verdict):
    quiet = b.host("quiet", state=m.SERVICE_UP, heartbeat_age_s=age_s)
    result = _detect([quiet] + _healthy(4), service_down_time_s=60.0)
    assert result.verdicts[0].verdict == verdict
    assert result.to_fence == () and result.state == "warning"
    [reason] = [r for r in result.reasons if r.host == "quiet"]
    assert reason.code == verdict


def test_the_silent_window_follows_nova_s_service_down_time():
    quiet = b.host("quiet", state=m.SERVICE_UP, heartbeat_age_s=STALE_S + 100.0)
    assert _detect([quiet] + _healthy(4), service_down_time_s=120.0).verdicts[0].verdict == ha.HOST_SILENT
    assert _detect([quiet] + _healthy(4), service_down_time_s=60.0).verdicts[0].verdict == \
        ha.HEARTBEAT_PATH_BROKEN


def test_a_silent_host_s_reason_says_how_long_it_is_silent_and_when_nova_s_verdict_is_due():
    quiet = b.host("quiet", state=m.SERVICE_UP, heartbeat_age_s=STALE_S + 20.0)
    [reason] = [r for r in _detect([quiet] + _healthy(4), service_down_time_s=60.0).reasons if r.host == "quiet"]
    assert dict(reason.details) == {"silent_s": 50, "nova_verdict_due_s": 40}
    assert reason.message == ("quiet silent for 50 s (no heartbeat) while Nova still shows nova-compute up: likely"
                              " down, waiting for Nova's verdict (due within 40 s); no fencing before it")


def test_missing_heartbeat_source_never_alone_condemns():
    bad = b.host("bad", state=m.SERVICE_DOWN, heartbeat_age_s=120.0)
    result = _detect([bad] + _healthy(4), failed_sources=(m.SOURCE_HEARTBEAT,))
    assert result.to_fence == ()
    assert reasons.INSUFFICIENT_EVIDENCE in [r.code for r in result.reasons]


def test_missing_nova_source_with_stale_heartbeat_is_insufficient_evidence():
    bad = b.host("bad", heartbeat_age_s=120.0)
    result = _detect([bad] + _healthy(4), failed_sources=(m.SOURCE_NOVA,))
    assert result.to_fence == ()
    assert result.verdicts[0].verdict == "insufficient_evidence"


def test_missing_metrics_source_does_not_mark_interfaces_down():
    bad = b.host("bad", down_interfaces=("bond0",))
    result = _detect([bad] + _healthy(4), AppConfig(ha_fence_interfaces=("bond0",)),
                     failed_sources=(m.SOURCE_METRICS,))
    assert result.to_fence == ()


def test_mass_failure_guard_fences_nothing():
    dead = [b.host("d%d" % i, state=m.SERVICE_DOWN, heartbeat_age_s=999) for i in range(3)]
    result = _detect(dead + _healthy(2))
    assert result.to_fence == ()
    assert result.is_error
    assert reasons.MASS_FAILURE_GUARD in [r.code for r in result.reasons]


def test_mass_failure_guard_share_is_a_parameter():
    dead = [b.host("d%d" % i, state=m.SERVICE_DOWN, heartbeat_age_s=999) for i in range(3)]
    result = _detect(dead + _healthy(2), max_condemned_share=0.7)
    assert result.to_fence == ("d0", "d1", "d2")


def test_no_fencer_enabled_is_an_error_without_fencing():
    bad = b.host("bad", state=m.SERVICE_DOWN, heartbeat_age_s=120.0)
    result = _detect([bad] + _healthy(3), AppConfig(ha_fence_nova=False))
    assert result.to_fence == ()
    assert [r.code for r in result.reasons] == [reasons.NO_FENCER]
    assert result.is_error


def test_ceph_fencing_without_host_address_is_impossible():
    bad = b.host("bad", state=m.SERVICE_DOWN, heartbeat_age_s=120.0, host_ip=None)
    result = _detect([bad] + _healthy(3), AppConfig(ha_fence_ceph=True))
    assert result.to_fence == ()
    assert [r.code for r in result.reasons] == [reasons.FENCING_IMPOSSIBLE]


def test_a_dead_host_is_fenced_though_unfinished_work_touches_it():
    # issue 32: the target of an evacuation that died is not "busy" with work it cannot finish
    bad = b.host("bad", state=m.SERVICE_DOWN, heartbeat_age_s=120.0)
    result = _detect([bad] + _healthy(3))
    assert result.to_fence == ("bad",)
    assert reasons.BUSY not in [r.code for r in result.reasons]


def test_healthy_aggregate_says_no_failure():
    result = _detect(_healthy(3))
    assert [r.code for r in result.reasons] == [reasons.NO_FAILURE]


def test_ha_never_evacuates_unfenced_host():
    dead = [b.host("d%d" % i, state=m.SERVICE_DOWN, heartbeat_age_s=999) for i in range(3)]
    vms = [b.vm("v%d" % i, "d%d" % i) for i in range(3)]
    snap = b.snapshot(dead + _healthy(2), vms)
    detection = ha.detect_failures(snap, AppConfig(), b.AGG, heartbeat_stale_after_s=STALE_S,
                                   now_s=b.NOW_S)
    plan = ha.plan_evacuation(snap, AppConfig(), b.agg_config(), m.BusySet(),
                              detection.to_fence)
    assert detection.to_fence == () and plan.moves == ()


def _dead(name):
    return b.host(name, state=m.SERVICE_DOWN, heartbeat_age_s=999)


def test_hosts_already_handled_neither_count_toward_the_guard_nor_are_fenced_again():
    handled = {"d0": "maintenance", "d1": "maintenance"}
    result = _detect([_dead("d0"), _dead("d1"), _dead("d2")] + _healthy(2), handled=handled)
    assert result.to_fence == ("d2",)
    assert [r.code for r in result.reasons] == [reasons.ALREADY_HANDLED] * 2
    assert "hypervisor restore d0" in result.reasons[0].message


@pytest.mark.parametrize("state,age", [(m.SERVICE_DOWN, 5.0), (m.SERVICE_UP, 120.0)])
def test_a_host_under_repair_is_already_handled_not_a_warning(state, age):
    # powered on in maintenance: its heartbeat is fresh while KeyVRM keeps nova-compute forced down
    result = _detect([b.host("repair", state=state, heartbeat_age_s=age)] + _healthy(2),
                     handled={"repair": "maintenance"})
    assert result.to_fence == ()
    assert [r.code for r in result.reasons] == [reasons.ALREADY_HANDLED]
    assert result.state == "healthy" and reasons.nothing_to_do(result.reasons)


def test_the_guard_weighs_new_failures_against_the_whole_aggregate():
    handled = {"d0": "maintenance"}
    result = _detect([_dead("d0"), _dead("d1"), _dead("d2"), _dead("d3")] + _healthy(1), handled=handled)
    assert result.to_fence == ()
    guard = [r for r in result.reasons if r.code == reasons.MASS_FAILURE_GUARD][0]
    assert guard.message.startswith("3 of 5 hypervisors")


def test_only_handled_hosts_failing_needs_no_fencer():
    result = _detect([_dead("d0")] + _healthy(2), AppConfig(ha_fence_nova=False), handled={"d0": "error"})
    assert [r.code for r in result.reasons] == [reasons.ALREADY_HANDLED]
    assert result.state == "healthy"


def test_a_nova_outage_is_insufficient_evidence_not_health():
    snap = b.snapshot([], failed_sources=(m.SOURCE_NOVA,))
    result = ha.detect_failures(snap, AppConfig(), b.AGG, heartbeat_stale_after_s=STALE_S, now_s=b.NOW_S)
    assert result.to_fence == ()
    assert [r.code for r in result.reasons] == [reasons.INSUFFICIENT_EVIDENCE]
    assert "nova source failed" in result.reasons[0].message
    assert result.state == "warning"


@pytest.mark.parametrize("state,age", [(m.SERVICE_DOWN, 5.0), (m.SERVICE_UP, 120.0)])
def test_an_alert_without_fencing_leaves_the_event_in_warning(state, age):
    result = _detect([b.host("odd", state=state, heartbeat_age_s=age)] + _healthy(3))
    assert result.to_fence == ()
    assert result.state == "warning"


@pytest.mark.parametrize("power,bmc_fencing,verdict", [
    ("off", True, ha.POWERED_OFF),  # the BMC's proof: condemned without Nova's verdict
    ("off", False, "heartbeat_path_broken"),  # no BMC fencing: its word is not counted
    ("on", True, "heartbeat_path_broken"),
    ("unreachable", True, "heartbeat_path_broken"),  # a partition: no proof, wait for Nova
    (None, True, "heartbeat_path_broken"),  # not asked (no credentials for the host)
])
def test_a_bmc_reporting_power_off_condemns_a_stale_host_before_nova(power, bmc_fencing, verdict):
    bad = m.replace(b.host("bad", state=m.SERVICE_UP, heartbeat_age_s=120.0), power=power)
    result = _detect([bad] + _healthy(4), AppConfig(ha_fence_bmc=bmc_fencing))
    assert result.verdicts[0].verdict == verdict
    assert result.to_fence == (("bad",) if verdict == ha.POWERED_OFF else ())


def test_a_bmc_reporting_power_off_does_not_condemn_a_host_whose_heartbeat_is_fresh():
    beating = m.replace(b.host("beating", state=m.SERVICE_UP, heartbeat_age_s=5.0), power="off")
    result = _detect([beating] + _healthy(4), AppConfig(ha_fence_bmc=True))
    assert result.verdicts[0].verdict == ha.HEALTHY and result.to_fence == ()


def test_the_silent_hosts_reason_says_what_its_bmc_answered():
    bad = m.replace(b.host("bad", state=m.SERVICE_UP, heartbeat_age_s=120.0), power="unreachable")
    result = _detect([bad] + _healthy(4), AppConfig(ha_fence_bmc=True))
    [reason] = [r for r in result.reasons if r.host == "bad"]
    assert "BMC did not answer" in reason.message and dict(reason.details)["bmc_power"] == "unreachable"


def test_the_mass_failure_guard_holds_powered_off_hosts_too():
    dead = [m.replace(b.host("d%d" % i, state=m.SERVICE_UP, heartbeat_age_s=999), power="off") for i in range(3)]
    result = _detect(dead + _healthy(2), AppConfig(ha_fence_bmc=True))
    assert result.to_fence == ()
    assert reasons.MASS_FAILURE_GUARD in [r.code for r in result.reasons]


@pytest.mark.parametrize("target_up,power,bmc_fencing,verdict", [
    (False, "on", True, ha.UNRESPONSIVE),  # hung: heartbeat and exporter silent, BMC answers on
    (False, "unreachable", True, "heartbeat_path_broken"),  # a partition: no BMC, no proof
    (True, "on", True, "heartbeat_path_broken"),  # only the heartbeat path is silent
    (None, "on", True, "heartbeat_path_broken"),  # the TSDB does not know the target
    (False, "on", False, "heartbeat_path_broken"),  # no BMC fencing: no fast verdict
])
def test_a_host_whose_heartbeat_and_metrics_target_are_silent_is_condemned_when_its_bmc_answers(
        target_up, power, bmc_fencing, verdict):
    hung = m.replace(b.host("hung", state=m.SERVICE_UP, heartbeat_age_s=120.0), target_up=target_up,
                     power=power)
    result = _detect([hung] + _healthy(4), AppConfig(ha_fence_bmc=bmc_fencing))
    assert result.verdicts[0].verdict == verdict
    assert result.to_fence == (("hung",) if verdict == ha.UNRESPONSIVE else ())


def test_a_metrics_target_read_from_a_failed_metrics_source_is_no_sign():
    hung = m.replace(b.host("hung", state=m.SERVICE_UP, heartbeat_age_s=120.0), target_up=False, power="on")
    result = _detect([hung] + _healthy(4), AppConfig(ha_fence_bmc=True), failed_sources=(m.SOURCE_METRICS,))
    assert result.verdicts[0].verdict == "heartbeat_path_broken" and result.to_fence == ()
