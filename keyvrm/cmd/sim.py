"""keyvrm-sim: run a scenario's bare simulated region, check KeyVRM on it, or generate an inventory.

``keyvrm-sim run SCENARIO [--until DURATION] [--json]`` simulates the region with its
scripted faults and nobody acting on it, then prints its final state (a table, or one
JSON document). ``keyvrm-sim check SCENARIO... [--timeline]`` runs each scenario with
KeyVRM acting on it (config, operator, safety invariants, ``expect``) and prints
passed/FAILED with the problems and, for a failure or with ``--timeline``, the timeline.
``keyvrm-sim generate --hosts N --vms-per-host K --seed S -o FILE``
writes an inventory (YAML, or JSON when FILE ends in .json) a scenario can load.
Exit status: 0 done, 1 a scenario expectation unmet or an invariant broken, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

import yaml

from keyvrm.scenarios import scenario
from keyvrm.simulator import generator
from keyvrm.simulator import inventory
from keyvrm.simulator import region as r
from keyvrm.simulator import report


def _duration(text):
    try:
        return scenario.parse_duration_s(float(text) if text.replace(".", "", 1).isdigit()
                                         else text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The command line of keyvrm-sim."""
    parser = argparse.ArgumentParser(prog="keyvrm-sim", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a scenario's region and print its final state")
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument("--until", type=_duration, default=None,
                     help="simulated time to run (e.g. 30m, 2h, 90); default: the "
                          "scenario's duration")
    run.add_argument("--json", action="store_true", help="print one JSON document")
    check = sub.add_parser("check", help="run scenarios with KeyVRM acting and judge them")
    check.add_argument("scenarios", nargs="+", help="scenario YAML files")
    check.add_argument("--timeline", action="store_true", help="print the timeline of passing runs too")
    gen = sub.add_parser("generate", help="write an explicit inventory")
    gen.add_argument("--hosts", type=int, required=True)
    gen.add_argument("--vms-per-host", type=int, default=8)
    gen.add_argument("--hosts-per-aggregate", type=int, default=50)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("-o", "--output", required=True, help="file (.json or .yaml)")
    return parser


def _run(args, out) -> int:
    scen = scenario.load(args.scenario)
    _, summary = scen.run(args.until)
    if args.json:
        out.write(json.dumps(summary, sort_keys=True) + "\n")
    else:
        out.write(report.render(summary) + "\n")
    return 1 if summary.get("expectations_failed") else 0


def _check(args, out) -> int:
    from keyvrm.scenarios import check
    failed = 0
    for path in args.scenarios:
        result = check.run(scenario.load(path))
        failed += not result.passed
        if result.passed and not args.timeline:
            out.write("%s: passed (%d cycles, %.1f s, outcomes %s)\n" % (path, result.cycles, result.wall_s,
                                                                         result.digest))
        else:
            out.write(result.report() + "\n")
    return 1 if failed else 0


def _generate(args, out) -> int:
    if args.hosts < 1 or args.vms_per_host < 0:
        raise scenario.ScenarioError("--hosts", "needs at least one host and no negative VMs")
    region = generator.generate(
        {"hosts": args.hosts, "hosts_per_aggregate": args.hosts_per_aggregate,
         "hosts_per_rack": min(20, args.hosts_per_aggregate)},
        {"vms_per_host": args.vms_per_host}, r.RegionOptions(seed=args.seed))
    document = inventory.dump(region)
    with open(args.output, "w", encoding="utf-8") as f:
        if args.output.endswith(".json"):
            json.dump(document, f, separators=(",", ":"))
        else:
            yaml.dump(document, f, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                      sort_keys=False, default_flow_style=None, width=100)
    out.write(f"wrote {args.output}: {len(region.hosts)} hosts, {len(region.vms)} VMs\n")
    return 0


def main(argv=None, out=None) -> int:
    """Entry point of the keyvrm-sim console script."""
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    try:
        if args.command == "run":
            return _run(args, out)
        if args.command == "check":
            return _check(args, out)
        return _generate(args, out)
    except scenario.ScenarioError as exc:
        sys.stderr.write(f"keyvrm-sim: {exc}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
