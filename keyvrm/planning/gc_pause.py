"""Pause Python's cyclic garbage collector while a plan runs.

A plan over a 10k-host aggregate allocates many short-lived objects, and the collector's
passes then walk the whole snapshot (millions of long-lived objects): a third of a plan's
time on the benchmark, varying from run to run. Planners create no reference cycles, so
memory stays bounded without the collector (reference counting frees everything); it is
resumed, with whatever piled up meanwhile, when the last running plan ends.
"""

from __future__ import annotations

import contextlib
import gc
import threading

_lock = threading.Lock()
_running = 0
_paused = False  # whether the collector was running when the first plan started


@contextlib.contextmanager
def cycle_collection_paused():
    """Run the body with the cyclic collector off, unless someone else turned it off."""
    global _running, _paused
    with _lock:
        if _running == 0:
            _paused = gc.isenabled()
            if _paused:
                gc.disable()
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _paused:
                _paused = False
                gc.enable()
