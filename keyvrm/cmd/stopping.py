"""How every KeyVRM command stops: SIGTERM and SIGINT set the event the command waits on.

Not oslo.service's launcher: its threading backend (cotyledon) runs each service in a
forked worker process under a master process that owns the signals, whereas KeyVRM's
commands stop in their own process (the engine suspends its flows and hands its jobs back;
the demo writes its summary and returns it to its caller) and tests run them in-process.
"""

import contextlib
import signal
import threading

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def stop_on_signals(stop):
    """Within the block SIGTERM and SIGINT set ``stop``; the previous handlers are back after it.

    Off the main thread, where Python allows no signal handler, nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
