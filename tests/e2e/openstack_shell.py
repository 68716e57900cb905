"""The ``openstack`` CLI of an e2e deployment, its commands run one after another in one process.

Each command runs ``openstackclient.shell.main`` -- what the ``openstack`` console script
runs: the option parsing, the keyvrm plugin, its API calls and its ``-f json`` output --
with its own stdout and stderr, so it answers as the command would (exit code, stdout,
stderr). Only the interpreter start and the imports, about a second of CPU per command,
are paid once per deployment instead of once per command. Each command starts from the
same state: the handlers the previous one added to the root logger are removed.

Commands, one per line on stdin: a JSON list of arguments (without ``openstack``); each
is answered with one JSON line on stdout: ``returncode``, ``stdout``, ``stderr``. End of
stdin ends the process.

``python -m tests.e2e.openstack_shell``
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import select
import subprocess
import sys

from tests.e2e import heartbeat_farm


def run(argv) -> dict:
    """``openstack ARGV`` in this process: its returncode, stdout and stderr."""
    from openstackclient import shell  # imported once, by the first command

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            returncode = shell.main(list(argv))
        except SystemExit as exc:  # argparse's errors and --help
            returncode = exc.code if isinstance(exc.code, int) else 1
    logging.getLogger().handlers.clear()
    return {"returncode": returncode, "stdout": out.getvalue(), "stderr": err.getvalue()}


def serve(commands, answers):
    """Run each command line from ``commands``, answering each on ``answers``, until EOF."""
    for line in commands:
        answers.write(json.dumps(run(json.loads(line))) + "\n")
        answers.flush()


class ShellProcess(heartbeat_farm.CommandedProcess):
    """The shell as a child process (its stderr, and its commands' logs beyond them, to ``log``)."""

    def __init__(self, python, log, env):
        super().__init__(python, __name__, [], log, env)

    def run(self, args, timeout_s) -> subprocess.CompletedProcess:
        """``openstack ARGS``, as ``subprocess.run(..., capture_output=True, text=True)`` would return it.

        A command that has not answered within ``timeout_s`` fails the caller (the process is
        killed: the deployment's next command fails too).
        """
        with self.lock:
            self.process.stdin.write(json.dumps(list(args)) + "\n")
            self.process.stdin.flush()
            ready, _, _ = select.select([self.process.stdout], [], [], timeout_s)
            if not ready:
                self.process.kill()
                raise AssertionError("openstack %s did not answer within %.0f s" % (" ".join(args), timeout_s))
            line = self.process.stdout.readline()
        if not line:
            raise AssertionError("the openstack shell process ended (rc %s): see its log" % self.process.poll())
        answer = json.loads(line)
        return subprocess.CompletedProcess(["openstack", *args], answer["returncode"], answer["stdout"],
                                           answer["stderr"])


def main() -> int:
    """Run the commands on stdin until EOF."""
    serve(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
