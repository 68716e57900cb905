"""Reasons as data: idempotent adds by (code, host, vm_id), a bound per code with an exact rest, one ranking."""

import json

import pytest

from keyvrm.model import reason_list
from keyvrm.planning import reasons

Entry = reason_list.Entry


def _hot(host, score=90.0):
    return Entry("overloaded", "%s syn_score %g%% > threshold 80%%" % (host, score), host=host,
                 details=(("syn_score", score), ("threshold", 80.0)))


def test_adding_the_same_entries_again_changes_nothing():
    once = reason_list.ReasonList().added([_hot("cmp-1"), _hot("cmp-2"), Entry("no_filters", "empty")])
    assert once.added([_hot("cmp-2"), Entry("no_filters", "empty"), _hot("cmp-1")]) == once


def test_a_message_with_semicolons_is_one_entry_however_often_it_is_added():
    note = Entry("filter_input_unknown", "A could not check x on 2 hosts; B could not check y on 3 hosts")
    listed = reason_list.ReasonList()
    for _ in range(3):  # a task run again, a second round
        listed = listed.added([note])
    assert listed.entries == (note,)


def test_an_entry_with_a_known_key_replaces_the_earlier_one_where_it_stands():
    listed = reason_list.ReasonList().added([_hot("cmp-1", 90.0), _hot("cmp-2")])
    again = listed.added([_hot("cmp-1", 95.0)])
    assert [e.host for e in again.entries] == ["cmp-1", "cmp-2"]
    assert dict(again.entries[0].details)["syn_score"] == 95.0


def test_entries_differing_only_in_host_or_vm_are_different_reasons():
    listed = reason_list.ReasonList().added([
        Entry("busy", "host cmp-1 busy", host="cmp-1"), Entry("busy", "VM vm-1 busy", host="cmp-1", vm_id="vm-1"),
        Entry("busy", "host cmp-2 busy", host="cmp-2")])
    assert len(listed.entries) == 3


def test_each_code_keeps_a_bounded_number_of_whole_entries_and_counts_the_rest_exactly():
    hot = [_hot("cmp-%03d" % i) for i in range(300)]
    listed = reason_list.ReasonList().added(hot + [Entry("no_filters", "empty")], per_code=10)
    assert [e.host for e in listed.entries if e.code == "overloaded"] == ["cmp-%03d" % i for i in range(10)]
    assert all(e in hot for e in listed.entries[:10])  # never cut mid-entry
    assert listed.more() == {"overloaded": 290}
    assert listed.added(hot[100:200], per_code=10).more() == {"overloaded": 290}  # left-out ones added again
    assert listed.added([_hot("cmp-new")], per_code=10).more() == {"overloaded": 291}


def test_at_least_one_entry_per_code_is_kept():
    with pytest.raises(ValueError, match="per_code"):
        reason_list.ReasonList().added([_hot("cmp-1")], per_code=0)


def test_the_ranking_puts_errors_then_findings_then_the_settled_count_then_notes():
    listed = reason_list.ReasonList().added([
        Entry("no_filters", "empty"), Entry("busy", "host cmp-1", host="cmp-1"),
        Entry("recommendations_final", "1 succeeded"), Entry("overloaded", "2 hypervisors overloaded"),
        Entry("busy", "host cmp-2", host="cmp-2"), Entry("fencing_impossible", "cmp-9: BMC", host="cmp-9")])
    ranked = listed.ranked(reasons.rank)
    assert [e.code for e in ranked.entries] == [
        "fencing_impossible", "busy", "busy", "overloaded", "recommendations_final", "no_filters"]
    assert ranked.first_code == "fencing_impossible"
    assert reason_list.ReasonList().first_code is None


def test_the_text_older_clients_read_lists_each_entry_and_each_codes_rest():
    listed = reason_list.ReasonList().added([_hot("cmp-1"), _hot("cmp-2"), _hot("cmp-3"),
                                             Entry("busy", "host cmp-9 busy", host="cmp-9")], per_code=2)
    assert listed.text() == ("[overloaded] cmp-1 syn_score 90% > threshold 80%; "
                             "[overloaded] cmp-2 syn_score 90% > threshold 80%; [overloaded] (+1 more); "
                             "[busy] host cmp-9 busy")
    assert reason_list.ReasonList().text() is None


def test_the_stored_form_is_json_and_reads_back_the_same():
    listed = reason_list.ReasonList().added([_hot("cmp-1"), _hot("cmp-2"), Entry("no_filters", "empty")],
                                            per_code=1)
    stored = json.loads(json.dumps(listed.to_json()))
    assert stored["entries"][0] == {"code": "overloaded", "message": "cmp-1 syn_score 90% > threshold 80%",
                                    "host": "cmp-1", "vm_id": None,
                                    "details": {"syn_score": 90.0, "threshold": 80.0}}
    assert reason_list.ReasonList.from_json(stored) == listed
    assert reason_list.ReasonList.from_json(None) == reason_list.ReasonList()
