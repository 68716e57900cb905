"""SIGTERM and SIGINT stop a KeyVRM command through keyvrm.cmd.stopping, and only while it runs."""

import os
import signal
import threading

from keyvrm.cmd import stopping


def test_sigterm_and_sigint_set_the_stop_event_within_the_block():
    for signum in (signal.SIGTERM, signal.SIGINT):
        with stopping.stop_on_signals(threading.Event()) as stop:
            os.kill(os.getpid(), signum)
            assert stop.wait(5)


def test_previous_handlers_are_back_after_the_block():
    received = []
    previous = signal.signal(signal.SIGTERM, lambda *_: received.append("own"))
    try:
        with stopping.stop_on_signals(threading.Event()) as stop:
            os.kill(os.getpid(), signal.SIGTERM)
            assert stop.wait(5)
        assert received == []
        os.kill(os.getpid(), signal.SIGTERM)
        assert received == ["own"]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_off_the_main_thread_nothing_is_installed():
    seen = {}

    def enter():
        before = signal.getsignal(signal.SIGTERM)
        with stopping.stop_on_signals(threading.Event()):
            seen["same"] = signal.getsignal(signal.SIGTERM) is before

    worker = threading.Thread(target=enter)
    worker.start()
    worker.join(5)
    assert seen == {"same": True}
