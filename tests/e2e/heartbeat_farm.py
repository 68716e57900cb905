"""Many hypervisors' heartbeats from one process, each written by keyvrm-heartbeat-agent's own code.

One agent process per host is what an operator deploys, and what the e2e deployment of
8 computes runs; 500 of them would take a 2-core machine for themselves. The farm runs
``keyvrm.cmd.heartbeat_agent.HeartbeatAgent`` for every host it is told to, each in a
thread of its own (``HeartbeatAgent.run``: the same key, value, TTL, interval measured
from each beat's start, and outage handling), built from the agent's config file as the
agent builds itself (``HeartbeatAgent.from_conf``), so each host has its own store client
as each agent process has: the agent's outage handling drops its client's connections,
which would break the writes of every other host sharing that client. Commands, one per
line on stdin, are answered on stdout once done:

- ``start HOST`` -> ``started HOST``: the host's agent beats from now on;
- ``stop HOST`` -> ``stopped HOST``: its agent has written its last heartbeat (a beat in
  flight is finished first, then none follows, as after the agent's SIGKILL).

End of stdin stops every agent and the process.

``python -m tests.e2e.heartbeat_farm --config-file heartbeat-agent.conf``
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import threading

from oslo_log import log as logging

from keyvrm.cmd import heartbeat_agent

ROOT = pathlib.Path(__file__).parents[2]  # the farm runs as ``-m tests.e2e.heartbeat_farm`` from here


class Farm:
    """The agents of the farm process: host -> (its stop event, its thread)."""

    def __init__(self, conf):
        self.conf = conf
        self.beating = {}

    def start(self, host):
        """Start ``host``'s agent (already beating: left as it is)."""
        if host in self.beating:
            return
        agent = heartbeat_agent.HeartbeatAgent.from_conf(self.conf, host=host)
        stop = threading.Event()
        thread = threading.Thread(target=agent.run, args=(stop,), name="heartbeat-%s" % host, daemon=True)
        thread.start()
        self.beating[host] = (stop, thread)

    def stop(self, host):
        """Stop ``host``'s agent and return once it can write no more."""
        stop, thread = self.beating.pop(host, (None, None))
        if stop is not None:
            stop.set()
            thread.join()

    def stop_all(self):
        for host in list(self.beating):
            self.stop(host)


def serve(farm, commands, answers):
    """Apply ``start``/``stop`` lines from ``commands``, answering each on ``answers``, until EOF."""
    actions = {"start": (farm.start, "started"), "stop": (farm.stop, "stopped")}
    for line in commands:
        verb, _, host = line.strip().partition(" ")
        if verb not in actions or not host:
            answers.write("error %s\n" % line.strip())
        else:
            action, done = actions[verb]
            action(host)
            answers.write("%s %s\n" % (done, host))
        answers.flush()
    farm.stop_all()


class CommandedProcess:
    """A farm as a child process (``python -m MODULE ARGS``, stderr to ``log``), one command at a time.

    Each command is a line on its stdin, answered by one line on its stdout.
    """

    def __init__(self, python, module, args, log, env):
        env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH")))))
        self.process = subprocess.Popen(
            [python, "-m", module, *args], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=log, env=env, text=True, bufsize=1)
        self.lock = threading.Lock()

    def ask(self, line) -> str:
        """Send ``line``; the farm's answer line (stripped) once it is done."""
        with self.lock:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            return self.process.stdout.readline().strip()

    def stop(self):
        """Close stdin (every agent stops) and wait for the process."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class FarmProcess(CommandedProcess):
    """The farm run as a child process (stderr to ``log``), with one Popen-like handle per host."""

    def __init__(self, python, config_file, log, env):
        super().__init__(python, __name__, ["--config-file", str(config_file)], log, env)

    def command(self, verb, host):
        """Send ``verb HOST`` and wait for the farm's answer."""
        answer = self.ask("%s %s" % (verb, host))
        if answer != "%s %s" % ({"start": "started", "stop": "stopped"}[verb], host):
            raise RuntimeError("heartbeat farm answered %r to %s %s" % (answer, verb, host))

    def agent(self, host) -> "FarmedAgent":
        """Start ``host``'s agent; its handle."""
        self.command("start", host)
        return FarmedAgent(self, host)


class FarmedAgent:
    """One host's agent in the farm, handled as the agent's process would be (poll, kill, wait)."""

    def __init__(self, farm, host):
        self.farm = farm
        self.host = host
        self.stopped = False

    def poll(self):
        """None while the agent beats (as ``Popen.poll`` of a running process)."""
        return 0 if self.stopped else None

    def kill(self):
        """The host's agent writes no more, as after SIGKILL."""
        self.farm.command("stop", self.host)
        self.stopped = True

    def wait(self):
        return 0


def main(argv=None) -> int:
    """Parse the agent's config (``--config-file``), then serve commands from stdin until EOF."""
    conf = heartbeat_agent.parse_conf(sys.argv[1:] if argv is None else argv)
    conf.set_override("use_stderr", True)  # stdout carries the answers
    logging.setup(conf, "keyvrm-heartbeat-farm")
    serve(Farm(conf), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
