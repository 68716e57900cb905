"""The scenario timeline's housekeeping lines: a purge that deleted rows is one line, one that did not none."""

from keyvrm.engine import housekeeping
from keyvrm.scenarios import timeline


def test_a_purge_is_one_line_with_its_batches_and_the_rows_it_deleted():
    done = housekeeping.Done(purged={"operations": 0, "events": 2000, "vm_history": 5}, purge_batches=3)
    assert list(timeline._housekeeping_lines([(3600.0, done)])) == [
        (3600.0, "history purged in 3 batches: 2000 events, 5 vm_history")]


def test_a_purge_that_found_nothing_old_leaves_no_line():
    done = housekeeping.Done(purged={"operations": 0, "events": 0})
    assert list(timeline._housekeeping_lines([(3600.0, done)])) == []
