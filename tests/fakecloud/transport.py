"""oslo.messaging's in-memory ``fake://`` transport without its 50 ms polling loop.

Every RPC server of the fake driver polls its queues every 50 ms; a compute has two (its
``compute`` and ``compute-alt`` topics), so 500 computes are 20,000 wake-ups a second of
an otherwise idle cloud, which is most of a core under eventlet. ``install()`` makes a
listener sleep until a message is appended to one of its queues (or it is stopped).
Queues, delivery, ordering and requeue stay the driver's own; only the wait changes.
"""

import copy
import time

from oslo_messaging._drivers import base
from oslo_messaging._drivers import impl_fake
from oslo_utils import eventletutils


class _Queue(list):
    """A queue of the fake exchange that wakes the listeners waiting on it when appended to."""

    def __init__(self, *args):
        super().__init__(*args)
        self.waiters = set()

    def append(self, item):
        super().append(item)
        for wake in list(self.waiters):
            wake.set()

    def __deepcopy__(self, memo):
        # a new pool's topic queue starts as a copy of the default one: the items, no waiters
        return _Queue(copy.deepcopy(list(self), memo))


def _get_topic_queue(exchange, topic, pool=None):
    if pool and (topic, pool) not in exchange._topic_queues:
        exchange._topic_queues[(topic, pool)] = copy.deepcopy(_get_topic_queue(exchange, topic))
    return exchange._topic_queues.setdefault((topic, pool), _Queue())


def _get_server_queue(exchange, topic, server):
    return exchange._server_queues.setdefault((topic, server), _Queue())


def _wake_event(listener):
    """The listener's wake-up event, registered on each of its queues on first use."""
    wake = listener.__dict__.get("_wake")
    if wake is None:
        wake = listener._wake = eventletutils.Event()
        for target in listener._targets:
            exchange = listener._exchange_manager.get_exchange(target.exchange)
            with exchange._queues_lock:
                if target.server:
                    queue = _get_server_queue(exchange, target.topic, target.server)
                else:
                    queue = _get_topic_queue(exchange, target.topic, listener._pool)
                queue.waiters.add(wake)
    return wake


@base.batch_poll_helper
def _poll(listener, timeout=None):
    deadline = None if timeout is None else time.time() + timeout
    wake = _wake_event(listener)
    while not listener._stopped.is_set():
        wake.clear()  # before looking: an append from now on sets it again
        for target in listener._targets:
            exchange = listener._exchange_manager.get_exchange(target.exchange)
            ctxt, message, reply_q, requeue = exchange.poll(target, listener._pool)
            if message is not None:
                return impl_fake.FakeIncomingMessage(ctxt, message, reply_q, requeue)
        if deadline is None:
            wake.wait()
        else:
            remaining = deadline - time.time()
            if remaining <= 0:
                break
            wake.wait(remaining)
    return None


_original_stop = impl_fake.FakeListener.stop


def _stop(listener):
    _original_stop(listener)
    _wake_event(listener).set()


def install():
    """Patch the fake driver in this process (call before any RPC server starts)."""
    impl_fake.FakeExchange._get_topic_queue = _get_topic_queue
    impl_fake.FakeExchange._get_server_queue = _get_server_queue
    impl_fake.FakeListener.poll = _poll
    impl_fake.FakeListener.stop = _stop
