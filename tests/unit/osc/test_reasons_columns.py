"""`openstack keyvrm`: reasons grouped by code with counts, readable however many hosts an event is about."""

from keyvrmclient.osc.v1 import event
from keyvrmclient.osc.v1 import reasons


def _entry(code, message, host=None, vm_id=None, **details):
    return {"code": code, "message": message, "host": host, "vm_id": vm_id, "details": details}


def _hot_event(hot=300, listed=9):
    """An LB event on ``hot`` overloaded hosts as API 1.1 gives it: the count, ``listed`` hosts, the rest counted."""
    entries = [_entry("overloaded", "%d hypervisors of agg-1 overloaded" % hot, hypervisors=hot)]
    entries += [_entry("overloaded", "cmp-%03d cpu 99%% >= ceiling 85%%" % i, "cmp-%03d" % i, cpu=99.0,
                       cpu_ceiling=85.0) for i in range(listed)]
    entries += [_entry("no_target", "no target for overloaded cmp-%03d: 300 hosts rejected by lb_ceilings.cpu" % i,
                       "cmp-%03d" % i) for i in range(10)]
    entries += [_entry("recommendations_final", "84 cancelled", cancelled=84),
                _entry("no_filters", "nova_filters is empty")]
    return entries, {"overloaded": hot - listed, "no_target": 290}


def test_a_hot_aggregates_reasons_read_as_one_group_per_code_with_the_rest_counted():
    entries, more = _hot_event()
    lines = reasons.ReasonsColumn(entries, more).human_readable().splitlines()
    assert lines[0] == "overloaded: 300 hypervisors of agg-1 overloaded"
    assert lines[1:11] == ["  cmp-%03d cpu 99%% >= ceiling 85%%" % i for i in range(9)] + ["  (+291 more)"]
    assert lines[11] == "no_target (300):"
    assert lines[12] == "  no target for overloaded cmp-000: 300 hosts rejected by lb_ceilings.cpu"
    assert lines[22:] == ["  (+290 more)", "recommendations_final: 84 cancelled", "no_filters: nova_filters is empty"]
    assert len(lines) == 25  # 300 hosts, 25 lines


def test_json_output_keeps_the_entries_as_the_api_gives_them():
    entries, more = _hot_event()
    assert reasons.ReasonsColumn(entries, more).machine_readable() == entries


def test_a_list_shows_each_code_with_its_count_in_one_line():
    entries, more = _hot_event()
    assert reasons.ReasonsSummaryColumn(entries, more).human_readable() == (
        "overloaded (301), no_target (300), recommendations_final, no_filters")


def test_a_code_whose_entries_were_all_counted_still_shows():
    assert reasons.groups([], {"busy": 4}) == [("busy", [], 4)]
    assert reasons.group_lines("busy", [], 4) == ["busy (4):", "  (+4 more)"]


def test_a_1_0_servers_text_is_shown_as_it_comes():
    record = {"reason": "[no_overload] nothing to do", "reason_code": "no_overload"}
    assert reasons.reasons_cell(record) == "[no_overload] nothing to do"
    assert reasons.one_line(record) == "[no_overload] nothing to do"


def test_an_embedded_event_and_an_outcome_show_their_reasons_in_one_line():
    entries, more = _hot_event()
    shown = reasons.EventColumn({"id": "ev-1", "state": None, "reasons": entries, "more_reasons": more})
    assert shown.human_readable() == (
        "id='ev-1', reason='overloaded (301), no_target (300), recommendations_final, no_filters', state=")
    outcome = {"kind": "LB", "aggregate_name": "agg-c", "reason_code": "lb_too_early",
               "reasons": [_entry("lb_too_early", "LB on agg-c too early: next run allowed in 120 s")],
               "more_reasons": {}}
    assert reasons.OutcomesColumn([outcome]).human_readable() == (
        "LB agg-c: lb_too_early: LB on agg-c too early: next run allowed in 120 s")


def test_no_target_lines_are_capped_in_number_and_in_hosts_per_line():
    rejected = [{"host": "cmp-%03d" % i, "check": "lb_ceilings.cpu", "vms": 3} for i in range(100)]
    entries = [{"vm_id": None, "source_host": "cmp-%03d" % i, "code": "no_target", "message": "...",
                "rejected_hosts": rejected, "more_hosts": 200} for i in range(300)]
    lines = event.NoTargetColumn(entries).human_readable().splitlines()
    assert len(lines) == event.NO_TARGET_LINES + 1
    assert lines[0] == ("overloaded cmp-000: cmp-000 lb_ceilings.cpu (3 VMs), cmp-001 lb_ceilings.cpu (3 VMs),"
                        " cmp-002 lb_ceilings.cpu (3 VMs), cmp-003 lb_ceilings.cpu (3 VMs),"
                        " cmp-004 lb_ceilings.cpu (3 VMs), (+295 more)")
    assert lines[-1] == "(+290 more VMs or hosts without a target)"
