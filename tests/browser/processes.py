"""Child processes of the browser tests: free loopback ports, start with a log file, wait until up, stop by PID."""

import socket
import subprocess
import time
import urllib.error
import urllib.request


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(argv, env, log_path) -> subprocess.Popen:
    """``argv`` started with ``env``, stdout and stderr appended to ``log_path``."""
    log = open(log_path, "ab")
    return subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_http(url, process, timeout_s=120.0) -> None:
    """Return once ``url`` answers HTTP at all; if ``process`` exits or time runs out, stop it and raise."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("%s exited with %s before %s answered" % (process.args[0], process.returncode, url))
        try:
            urllib.request.urlopen(url, timeout=60).close()  # a first page may compile for long
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    stop(process)
    raise RuntimeError("%s did not answer within %.0f s" % (url, timeout_s))


def stop(process, timeout_s=20.0) -> None:
    """SIGTERM ``process``, SIGKILL after ``timeout_s``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
