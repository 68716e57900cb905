"""Migration 0008 turns the reason text of events and cycle outcomes into the list the engine keeps."""

import datetime

import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.model import reason_list

AT = datetime.datetime(2026, 12, 1, 10, 0, 0)
OVERLOADED = ("[overloaded] 2 hypervisors of agg-1 overloaded: cmp-1 cpu 100% >= ceiling 90%; "
              "cmp-2 syn_score 85% > threshold 80%")
UNCHECKED = ("[filter_input_unknown] A could not check x on 2 hosts for 3 VMs (why); B could not check y on"
             " 1 host for 1 VM (why): treated as passing, Nova checks the host itself when asked to move a VM there")
BUSY = ["[busy] host cmp-%02d is touched by an unfinished recommendation" % i for i in range(12)]
TEXTS = {
    # messages holding "; " stay whole: only "; [code] " starts the next entry
    "ev-lb": ("overloaded", "; ".join([OVERLOADED] + BUSY[:1] + [UNCHECKED])),
    # a settle that raced wrote its prefix twice; a note recorded twice
    "ev-settled": ("recommendations_final",
                   "[recommendations_final] [recommendations_final] 2 succeeded; "
                   "[no_filters] nova_filters is empty; [no_filters] nova_filters is empty"),
    # the executor's own settle wrote the counts without a code
    "ev-counts": ("recommendations_final", "1 succeeded, 1 failed"),
    # more entries of one code than are kept
    "ev-busy": ("busy", "; ".join(BUSY)),
    # the 8,000-character cut left half an entry: kept as it is
    "ev-cut": ("overloaded", "[overloaded] 300 hypervisors of agg-1 overloaded: cmp-001 cpu 99.9% >= ceil"),
    "ev-none": (None, None),
}


def _seed_at_0007(engine):
    migration.upgrade(engine, "0007")
    with engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO cycles (id, status, started_at) VALUES (1, 'completed', :at)"),
                           {"at": AT})
        for event_id, (code, text) in TEXTS.items():
            connection.execute(sa.text(
                "INSERT INTO events (id, aggregate_name, kind, marker, status, reason_code, reason, cycle_id,"
                " created_at, updated_at) VALUES (:id, 'agg-1', 'LB', 'LB', 'completed', :code, :text, 1, :at, :at)"),
                {"id": event_id, "code": code, "text": text, "at": AT})
        connection.execute(sa.text(
            "INSERT INTO cycle_outcomes (cycle_id, aggregate_name, kind, reason_code, reason, ran_at, created_at)"
            " VALUES (1, 'agg-2', 'LB', 'lb_too_early', :text, :at, :at)"),
            {"text": "[lb_too_early] LB on agg-2 too early: next run allowed in 120 s", "at": AT})


def _entries(db, event_id):
    listed = reason_list.ReasonList.from_json(db_api.get_event_summary(db, event_id)["reasons"])
    return [(e.code, e.message) for e in listed.entries], listed.more()


def check_conversion(url):
    """Build a database at 0007 with reason text on ``url``, upgrade it, and check every converted row."""
    db = db_api.Database(url)
    try:
        _seed_at_0007(db.engine)
        migration.upgrade(db.engine)
        assert _entries(db, "ev-lb") == ([
            ("overloaded", OVERLOADED[len("[overloaded] "):]),
            ("busy", BUSY[0][len("[busy] "):]),
            ("filter_input_unknown", UNCHECKED[len("[filter_input_unknown] "):])], {})
        assert _entries(db, "ev-settled") == ([("recommendations_final", "2 succeeded"),
                                               ("no_filters", "nova_filters is empty")], {})
        assert _entries(db, "ev-counts") == ([("recommendations_final", "1 succeeded, 1 failed")], {})
        busy, more = _entries(db, "ev-busy")
        assert busy == [("busy", text[len("[busy] "):]) for text in BUSY[:10]] and more == {"busy": 2}
        assert _entries(db, "ev-cut")[0] == [("overloaded", TEXTS["ev-cut"][1][len("[overloaded] "):])]
        assert db_api.get_event_summary(db, "ev-none")["reasons"] is None
        assert db_api.get_event_summary(db, "ev-lb")["reason_code"] == "overloaded"  # kept as it was
        [outcome] = db_api.list_cycle_outcomes(db, 1)
        assert reason_list.ReasonList.from_json(outcome["reasons"]).text() == (
            "[lb_too_early] LB on agg-2 too early: next run allowed in 120 s")
    finally:
        db.dispose()


def test_reason_text_becomes_entries_split_only_before_a_code(tmp_path):
    check_conversion("sqlite:///%s/reasons.sqlite" % tmp_path)
