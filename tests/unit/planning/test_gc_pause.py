"""The cyclic garbage collector is paused while plans run, and plans leave it nothing."""

import gc

import pytest

from keyvrm.model.settings import AggregateConfig
from keyvrm.model.settings import AppConfig
from keyvrm.model import snapshot as m
from keyvrm.planning import gc_pause
from keyvrm.planning import lb
from tests.unit.planning import regiongen


@pytest.fixture(autouse=True)
def _collector_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_during_a_plan_and_on_again_after():
    with gc_pause.cycle_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_resumes_when_the_last_overlapping_plan_ends():
    first = gc_pause.cycle_collection_paused()
    second = gc_pause.cycle_collection_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off():
    gc.disable()
    with gc_pause.cycle_collection_paused():
        pass
    assert not gc.isenabled()


def test_the_collector_resumes_when_a_plan_fails():
    with pytest.raises(ValueError):
        with gc_pause.cycle_collection_paused():
            raise ValueError("planner bug")
    assert gc.isenabled()


def test_an_lb_plan_leaves_no_reference_cycles_for_the_paused_collector():
    snap = regiongen.generate_region(regiongen.cpu_hot_shape(60, 60), 7)
    config = AggregateConfig(name=snap.aggregates[0].name, marker="LB", no_op_mode=False,
                             no_op_reason=None)
    gc.collect()
    plan = lb.plan_balancing(snap, AppConfig(enabled=True), config, m.BusySet())
    assert plan.moves
    assert gc.collect() == 0
