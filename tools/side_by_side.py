"""Run commands side by side and print each one's output whole when it ends.

    python tools/side_by_side.py -- CMD ARG... -- CMD ARG...

Used by ``tox -e nova``: the tests on the session's fake cloud (CPU) and the e2e modules
(which mostly wait on Nova's timers) run at once, each in its own pytest process, so the
e2e deployments still come one after the other. pytest-xdist's ``loadgroup`` would do it
in one process, but with pytest 9 it ignores the groups (it renames ``item._nodeid``, which
pytest 9 no longer reads). Exits with the first non-zero status, else 0.
"""

import subprocess
import sys
import tempfile
import time


def split_commands(argv):
    """The commands in ``argv``: each starts after a ``--``; an empty one is an error."""
    commands, current = [], None
    for arg in argv:
        if arg == "--":
            current = []
            commands.append(current)
        elif current is None:
            raise SystemExit("side_by_side: a command starts after '--' (got %r first)" % arg)
        else:
            current.append(arg)
    if not commands or not all(commands):
        raise SystemExit("side_by_side: give at least one command, each after '--'")
    return commands


def main(argv):
    """Start every command, wait for all; print each output in turn, as it ends; the first failure's status."""
    running = []
    for command in split_commands(argv):
        output = tempfile.TemporaryFile()
        running.append((command, subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT),
                        output, time.monotonic()))
    status = 0
    while running:
        for entry in list(running):
            command, process, output, started = entry
            if process.poll() is None:
                continue
            running.remove(entry)
            output.seek(0)
            took_s = time.monotonic() - started
            sys.stdout.write("=== %s: exit %d in %.0f s\n" % (" ".join(command), process.returncode, took_s))
            sys.stdout.flush()
            sys.stdout.buffer.write(output.read())
            sys.stdout.flush()
            output.close()
            status = status or process.returncode
        time.sleep(0.5)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
