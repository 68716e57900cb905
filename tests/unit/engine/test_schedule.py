"""The schedule keeps a fixed grid of the period: late cycles do not drift it, missed ones are skipped."""

from keyvrm.engine import schedule


def test_first_cycle_is_due_at_once():
    assert schedule.Schedule().is_due(now_s=1000.0, period_s=60)


def test_next_cycle_is_due_one_period_after_the_grid_point_not_after_a_late_start():
    s = schedule.Schedule().ticked(1000.0, 60)
    assert not s.is_due(1059.9, 60)
    late = s.ticked(1063.0, 60)  # started 3 s late
    assert late.last_tick_s == 1060.0
    assert late.next_due_s(60) == 1120.0


def test_missed_grid_points_are_skipped_not_run_back_to_back():
    s = schedule.Schedule(1000.0).ticked(1250.0, 60)  # 4 grid points passed during a slow cycle
    assert s.last_tick_s == 1240.0
    assert not s.is_due(1250.0, 60)
    assert s.is_due(1300.0, 60)


def test_changed_period_rebases_on_the_last_tick():
    s = schedule.Schedule(1000.0)
    assert s.next_due_s(30) == 1030.0
    assert s.ticked(1031.0, 30).last_tick_s == 1030.0


def test_clock_stepping_back_restarts_the_grid():
    assert schedule.Schedule(1000.0).ticked(900.0, 60).last_tick_s == 900.0
