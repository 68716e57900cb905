"""A page of recommendations with each one's newest journal line (``page_recommendations(latest_operation=True)``).

Shared by the SQLite unit test and the PostgreSQL functional test: the lines are right
(the newest by journal order, also when several share a timestamp; None before the
first; another event's lines never leak in) and a page costs one query however many
recommendations it holds (plus one for the ``marker`` row of a later page).
"""

import contextlib
import datetime

import sqlalchemy as sa

from keyvrm.db import api as db_api
from keyvrm.db import models

T0 = datetime.datetime(2026, 12, 1, 10, 0, 0)
# The journal of a recommendation that was retried and then failed; an index into it is where one stopped.
JOURNAL = (("start", 1, "run requested by ada", None), ("prepare", 1, "VM ACTIVE on cmp-1", None),
           ("execute", 1, "live_migrate to cmp-2 accepted as migration 7", None),
           ("retry", 1, "attempt 1 failed: migration_error (retry); next attempt 2", None),
           ("execute", 2, "live_migrate to cmp-2 accepted as migration 8", None),
           ("error", 2, None, "migration 8 failed"))


def seed_event(db, count, other_count=3, prefix="rec"):
    """An event with ``count`` manual recommendations, the k-th with the first k % 7 lines of ``JOURNAL``.

    The lines are written round-robin over the recommendations (so ids interleave) and
    all at one instant; another event has ``other_count`` recommendations whose lines
    are written last. Ids are ``prefix-0000``, ... Returns (event id, {recommendation id: number of lines}).
    """
    event_id = db_api.create_event(db, "agg-x", "LB", "LB")
    other_id = db_api.create_event(db, "agg-x", "LB", "LB")
    lines = {}
    with db.writer() as session:
        recs = []
        for index in range(count + other_count):
            rec_id = "%s-%04d" % (prefix, index)
            mine = index < count
            recs.append(models.Recommendation(
                id=rec_id, event_id=event_id if mine else other_id, action="live_migrate", vm_id="vm-%s" % rec_id,
                source_host="cmp-1", target_host="cmp-2", status="manual_action",
                created_at=T0 + datetime.timedelta(seconds=index), updated_at=T0))
            lines[rec_id] = index % 7 if mine else len(JOURNAL)
        session.add_all(recs)
        session.flush()
        for step, (kind, attempt, message, error) in enumerate(JOURNAL):
            session.add_all([models.Operation(recommendation_id=rec_id, kind=kind, attempt=attempt, message=message,
                                              error=error, created_at=T0)
                             for rec_id, written in sorted(lines.items()) if step < written])
    return event_id, lines


@contextlib.contextmanager
def counted_queries(db):
    """The SQL queries ``db`` sends while the block runs (transaction control such as BEGIN left out)."""
    sent = []

    def record(conn, cursor, statement, parameters, context, executemany):
        if statement.split(None, 1)[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"):
            sent.append(statement)
    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)


def check_latest_lines(db):
    """Each recommendation of the event has its newest journal line, or None; the other event's stay out."""
    event_id, lines = seed_event(db, 20)
    page = db_api.page_recommendations(db, 100, event_id=event_id, latest_operation=True)
    assert [r["id"] for r in page] == ["rec-%04d" % i for i in range(20)]
    for rec in page:
        written = lines[rec["id"]]
        if not written:
            assert rec["latest_operation"] is None
            continue
        kind, attempt, message, error = JOURNAL[written - 1]
        assert rec["latest_operation"] == {"kind": kind, "attempt": attempt, "message": message, "error": error,
                                           "created_at": T0}
        journal = db_api.list_operations(db, rec["id"])
        assert (journal[-1]["kind"], journal[-1]["attempt"]) == (kind, attempt)
    shown = db_api.get_recommendation(db, "rec-0006", latest_operation=True)
    assert shown["latest_operation"]["kind"] == "error" and shown["status"] == "manual_action"
    assert "latest_operation" not in db_api.get_recommendation(db, "rec-0006")
    assert "latest_operation" not in db_api.page_recommendations(db, 1)[0]


def check_one_query_per_page(db):
    """A page of 60 recommendations with 3 lines each on average costs the queries a page of 6 does: one.

    A later page adds the read of its ``marker`` row, whatever the page's size too.
    """
    small_event, _ = seed_event(db, 6, other_count=0, prefix="small")
    big_event, lines = seed_event(db, 60, other_count=0, prefix="big")
    assert sum(lines.values()) > 2.5 * 60  # several lines each
    counts = {}
    for name, event_id in (("small", small_event), ("big", big_event)):
        with counted_queries(db) as first:
            page = db_api.page_recommendations(db, 100, event_id=event_id, latest_operation=True)
        with counted_queries(db) as later:
            rest = db_api.page_recommendations(db, 100, marker=page[2]["id"], event_id=event_id,
                                               latest_operation=True)
        assert len(rest) == len(page) - 3
        counts[name] = (len(page), len(first), len(later))
    assert counts == {"small": (6, 1, 2), "big": (60, 1, 2)}, counts
