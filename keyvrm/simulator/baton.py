"""One flow at a time on a driven simulated clock, handed on in an order that never varies.

On the driven clock nothing moves time but KeyVRM's own waits. With several flows
running at once (the evacuations of a host, a cycle's HA and LB runs) real threads
would each move the clock as the operating system schedules them, and a run would
differ from the next. The baton removes that: a flow runs only while it holds the baton
and gives it up when it waits on the clock or ends. The next holder is the waiting flow
with the earliest wake time (ties: the one that began waiting first); if that time is
ahead, the clock first moves to it. A newly dispatched flow waits its turn at the time
it was dispatched. The flows still interleave at every wait, as they would in
production, but the same scenario gives the same sequence of events on every run.

Runs a flow starts side by side (``side_by_side``: HA's evacuations of a host) take turns
the same way, while the flow that started them waits for the last one with the baton
given up. Each flow needs a thread of its own while it waits (the dispatcher's pool must
be at least as large as the number of flows alive at once); a wait from a thread that is
no flow (a collector's helper thread) moves the clock directly, as without a baton.
"""

from __future__ import annotations

import heapq
import itertools
import threading


class Baton:
    """The baton of the flows of one simulated region (see the module docstring)."""

    def __init__(self, region):
        self._region = region
        self._changed = threading.Condition()
        self._waiting = []  # heap of (wake time, order, token)
        self._order = itertools.count()
        self._holder = None
        self._mine = threading.local()
        self._joining = {}  # token of a flow waiting for runs it started -> their tokens not ended

    def admit(self) -> object:
        """A token for a flow just dispatched: it runs when it gets the baton, at the time of now."""
        token = object()
        with self._changed:
            self._wait(self._region.clock.now, token)
            if self._holder is None:
                self._hand_on()
        return token

    def enter(self, token) -> None:
        """The flow of ``token`` starts in this thread: wait for the baton."""
        self._mine.token = token
        with self._changed:
            self._changed.wait_for(lambda: self._holder is token)

    def leave(self) -> None:
        """The flow of this thread ended: the baton goes on (to the flow that waits for it, if it was the last)."""
        token, self._mine.token = self._mine.token, None
        with self._changed:
            for parent, running in list(self._joining.items()):
                running.discard(token)
                if not running:
                    del self._joining[parent]
                    self._wait(self._region.clock.now, parent)
            if self._holder is token:
                self._holder = None
                self._hand_on()

    def side_by_side(self, calls) -> list:
        """Run ``calls`` (callables without arguments) as runs in turn, this flow waiting for all; their results.

        The first exception a call raised is raised once every call has ended.
        """
        parent = self._mine.token
        results, failures = [None] * len(calls), []
        tokens = [object() for _ in calls]

        def run(index):
            self.enter(tokens[index])
            try:
                results[index] = calls[index]()
            except BaseException as exc:  # handed to the waiting flow
                failures.append(exc)
            finally:
                self.leave()
        with self._changed:
            for token in tokens:
                self._wait(self._region.clock.now, token)
            self._joining[parent] = set(tokens)
            self._holder = None
            self._hand_on()
        threads = [threading.Thread(target=run, args=(i,), name="keyvrm-in-turn-%d" % i, daemon=True)
                   for i in range(len(calls))]
        for thread in threads:
            thread.start()
        with self._changed:
            self._changed.wait_for(lambda: self._holder is parent)
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        return results

    def holds(self) -> bool:
        """Whether this thread is a flow's (it holds the baton while it runs)."""
        return getattr(self._mine, "token", None) is not None

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` of simulated time with the baton given up; False if this thread is no flow."""
        token = getattr(self._mine, "token", None)
        if token is None:
            return False
        with self._changed:
            self._wait(self._region.clock.now + seconds, token)
            self._holder = None
            self._hand_on()
            self._changed.wait_for(lambda: self._holder is token)
        return True

    def _wait(self, wake_s, token):
        heapq.heappush(self._waiting, (wake_s, next(self._order), token))

    def _hand_on(self):
        """Give the baton to the earliest waiter, moving the clock to its wake time first."""
        if not self._waiting:
            return
        wake_s, _, token = heapq.heappop(self._waiting)
        with self._region.lock:
            if self._region.clock.now < wake_s:
                self._region.clock.run_until(wake_s)
        self._holder = token
        self._changed.notify_all()
