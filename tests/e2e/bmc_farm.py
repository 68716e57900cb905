"""The computes' power: one IPMI BMC per compute of the fake cloud, and what its power feeds, in one process.

A test peer of the end-to-end deployment. Each compute is a ``Machine``: its power state
(what its BMC reads, the truth), its nova-compute (in the fake cloud, started and stopped
through the cloud's control API) and its heartbeat agent (a ``keyvrm-heartbeat-agent``
process per host, or its thread in a ``heartbeat_farm.Farm`` in this process). Power off
stops the host's heartbeat agent (SIGKILL, or the farmed agent stops) and its
nova-compute, and only then reads ``off``; power on starts both again, then reads ``on``.
So ``power status`` never reads what is not so.

Each host's BMC is a pyghmi BMC (``tests/functional/fencing/fake_bmc.py``) on 127.0.0.1
at the UDP port, user and password the fencing credentials file gives it (the file the
deployment registers with KeyVRM: both read the same one). Commands, one per line on
stdin, act on a host and are answered on stdout, once done, with the host's state as one
JSON line (``host``, ``power``, ``heartbeat``, ``answering``, ``ipmi_power_offs``: the
power-off requests its BMC took over IPMI):

- ``off HOST``: the host loses power, as its BMC's ``chassis power off`` does (one code path);
- ``on HOST``: power comes back: nova-compute and the heartbeat agent run again;
- ``hang HOST``: the host hangs with its power on: its heartbeat stops, its nova-compute
  keeps reporting up (a hung kernel under a live service, or a cut heartbeat path);
- ``resume HOST``: a hung host beats again;
- ``unreachable HOST`` / ``reachable HOST``: its BMC answers nothing at all / again;
- ``state HOST``: the state alone.

The first line on stdout, once every BMC listens and every agent runs, is ``ready``. End
of stdin stops every agent and the process.

``python -m tests.e2e.bmc_farm --credentials-file fencing.yaml --endpoints-file
endpoints.json --agent-config heartbeat-agent.conf --log-dir DIR [--farm-heartbeats]``
"""

from __future__ import annotations

import argparse
import json
import pathlib
import signal
import subprocess
import sys
import threading

from pyghmi.ipmi.private import serversession

from keyvrm.cmd import heartbeat_agent
from keyvrm.fencing import credentials as creds
from tests.e2e import heartbeat_farm
from tests.fakecloud import client as fakecloud
from tests.functional.fencing import fake_bmc

AGENT = pathlib.Path(sys.executable).with_name("keyvrm-heartbeat-agent")


class AgentProcesses:
    """One ``keyvrm-heartbeat-agent`` process per host, as deployed; stopped by SIGKILL, as a dying host's."""

    def __init__(self, config_file, log_dir):
        self.config_file = config_file
        self.log_dir = pathlib.Path(log_dir)
        self.processes = {}

    def start(self, host):
        with open(self.log_dir / ("heartbeat-%s.log" % host), "a") as log:
            self.processes[host] = subprocess.Popen(
                [str(AGENT), "--config-file", str(self.config_file), "--host", host],
                stdout=log, stderr=subprocess.STDOUT)

    def stop(self, host):
        process = self.processes.pop(host, None)
        if process is not None:
            process.send_signal(signal.SIGKILL)
            process.wait()

    def stop_all(self):
        for host in list(self.processes):
            self.stop(host)


class Machine:
    """One compute's power and what it feeds; every change under one lock, the state set once it is true."""

    def __init__(self, host, cloud, heartbeats):
        self.host = host
        self.cloud = cloud
        self.heartbeats = heartbeats
        self.power = "on"
        self.beating = False
        self.answering = True
        self.ipmi_power_offs = 0
        self.lock = threading.Lock()

    def boot(self):
        """The host runs: its nova-compute is the fake cloud's already; its agent starts."""
        with self.lock:
            self._beat(True)

    def set_power(self, power):
        """Power ``on`` or ``off``: nova-compute and the heartbeat agent follow, then the state reads it."""
        with self.lock:
            if self.power != power:
                (self.cloud.start_compute if power == "on" else self.cloud.stop_compute)(self.host)
                self._beat(power == "on")
                self.power = power

    def hang(self):
        with self.lock:
            self._beat(False)

    def resume(self):
        with self.lock:
            if self.power == "on":
                self._beat(True)

    def set_answering(self, answering):
        self.answering = answering

    def _beat(self, beating):
        if beating and not self.beating:
            self.heartbeats.start(self.host)
        elif not beating and self.beating:
            self.heartbeats.stop(self.host)
        self.beating = beating

    def state(self) -> dict:
        return {"host": self.host, "power": self.power, "heartbeat": self.beating,
                "answering": self.answering, "ipmi_power_offs": self.ipmi_power_offs}


class SilentWhenUnreachable(fake_bmc.Sha1OnlySession):
    """A BMC session that drops what it receives while its machine's BMC is unreachable."""

    def process_pktqueue(self):
        if not self.bmc.machine.answering:
            self.pktqueue.clear()
            return
        super().process_pktqueue()


class MachineBmc(fake_bmc.FakeBmc):
    """The BMC of one ``Machine``: reads its power; power off/on act on it in the background.

    The IPMI answer does not wait for the host to go dark (a real BMC acknowledges the
    command, then the power state changes); the power state reads the change once done.
    """

    def __init__(self, machine, bmc):
        super().__init__({bmc.username: bmc.password.reveal()}, bmc.port, machine.power, "immediate")
        self.machine = machine

    def get_power_state(self):
        return self.machine.power

    def power_off(self):
        self.machine.ipmi_power_offs += 1
        threading.Thread(target=self.machine.set_power, args=("off",), daemon=True).start()

    def power_on(self):
        threading.Thread(target=self.machine.set_power, args=("on",), daemon=True).start()

    def process_pktqueue(self):
        if not self.machine.answering:
            self.pktqueue.clear()
            return
        super().process_pktqueue()


COMMANDS = {
    "off": lambda machine: machine.set_power("off"),
    "on": lambda machine: machine.set_power("on"),
    "hang": Machine.hang,
    "resume": Machine.resume,
    "unreachable": lambda machine: machine.set_answering(False),
    "reachable": lambda machine: machine.set_answering(True),
    "state": lambda machine: None,
}


def serve(machines, commands, answers):
    """Apply command lines from ``commands`` to ``machines``, answering each on ``answers``, until EOF."""
    for line in commands:
        verb, _, host = line.strip().partition(" ")
        if verb not in COMMANDS or host not in machines:
            answers.write(json.dumps({"error": line.strip()}) + "\n")
        else:
            COMMANDS[verb](machines[host])
            answers.write(json.dumps(machines[host].state()) + "\n")
        answers.flush()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--credentials-file", required=True, help="KeyVRM's fencing credentials file")
    parser.add_argument("--endpoints-file", required=True, help="The fake cloud's endpoints.json")
    parser.add_argument("--agent-config", required=True, help="The heartbeat agents' config file")
    parser.add_argument("--log-dir", required=True, help="Where each agent process logs")
    parser.add_argument("--farm-heartbeats", action="store_true",
                        help="The agents run as threads of this process (heartbeat_farm) instead of processes")
    args = parser.parse_args(argv)
    if args.farm_heartbeats:
        heartbeats = heartbeat_farm.Farm(heartbeat_agent.parse_conf(["--config-file", args.agent_config]))
    else:
        heartbeats = AgentProcesses(args.agent_config, args.log_dir)
    cloud = fakecloud.attach(args.endpoints_file)
    serversession.ServerSession = SilentWhenUnreachable
    machines, bmcs = {}, []
    for host, entry in sorted(creds.load_credentials(args.credentials_file).items()):
        machines[host] = Machine(host, cloud, heartbeats)
        bmcs.append(MachineBmc(machines[host], entry.bmc))
    for machine in machines.values():
        machine.boot()
    threading.Thread(target=fake_bmc.FakeBmc.listen, name="ipmi", daemon=True).start()
    print("ready", flush=True)
    try:
        serve(machines, sys.stdin, sys.stdout)
    finally:
        heartbeats.stop_all()
    return 0


class BmcFarmProcess(heartbeat_farm.CommandedProcess):
    """The farm run as a child process (stderr to ``log``), its answers parsed."""

    def __init__(self, python, args, log, env):
        """Start the farm with command-line ``args`` (see ``main``); returns once it is ready."""
        super().__init__(python, __name__, args, log, env)
        if self.process.stdout.readline().strip() != "ready":
            self.stop()
            raise RuntimeError("the BMC farm did not start (see its log)")

    def command(self, verb, host) -> dict:
        """Send ``verb HOST``; the host's state once done."""
        answer = json.loads(self.ask("%s %s" % (verb, host)) or "{}")
        if answer.get("host") != host:
            raise RuntimeError("the BMC farm answered %r to %s %s" % (answer, verb, host))
        return answer


if __name__ == "__main__":
    sys.exit(main())
