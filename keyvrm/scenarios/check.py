"""Run a scenario with KeyVRM acting on it and judge the run: ``keyvrm-sim check`` and the scenario tests.

The run is on the driven clock (``harness``): at each cycle boundary the engine's
housekeeping runs first (the sweep and retention, when due), then the operator acts and
config changes due by then are sent through the REST API, then the cycle runs to its end
(its waits move simulated time), then the region lives ``run.every`` more. An act marked
``mid_cycle`` is sent at its own time on the region's clock instead, even while a cycle
runs (between two polls of a migration, say).
After every cycle the safety invariants are checked; at the end the scenario's
``expect`` (and the bare region's ``expectations``). The result carries every problem,
the timeline, and a digest of KeyVRM's outcomes (the same scenario gives the same
digest on every run and every machine).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time

from keyvrm.db import api as db_api
from keyvrm.drivers import errors
from keyvrm.scenarios import acts as scenario_acts
from keyvrm.scenarios import expect as scenario_expect
from keyvrm.scenarios import harness as scenario_harness
from keyvrm.scenarios import invariants
from keyvrm.scenarios import prediction
from keyvrm.scenarios import scenario as scenario_mod
from keyvrm.scenarios import timeline
from keyvrm.simulator import report

CYCLE_TIMEOUT_S = 120.0  # wall seconds a cycle and its flows may take before the run is judged stuck


@dataclasses.dataclass
class Result:
    """How a scenario run went: problems (unmet expectations, failed calls), broken invariants, timeline."""

    name: str
    problems: list
    violations: list  # [(seconds after the start, text)]
    timeline: str
    outcomes: dict
    cycles: int
    wall_s: float
    predictions: list = dataclasses.field(default_factory=list)  # prediction.Verdict of each host death

    @property
    def passed(self) -> bool:
        return not self.problems and not self.violations

    @property
    def digest(self) -> str:
        """A short hash of KeyVRM's outcomes (events, recommendations, cycles, final placement)."""
        text = json.dumps(self.outcomes, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def report(self) -> str:
        """What a failing run prints: its problems, its broken invariants, then its timeline."""
        lines = ["scenario %s: %s (%d cycles, %.1f s)" % (self.name, "passed" if self.passed else "FAILED",
                                                          self.cycles, self.wall_s)]
        lines += ["  expectation: " + p for p in self.problems]
        lines += ["  invariant at %s: %s" % (timeline.clock_text(at_s), text) for at_s, text in self.violations]
        lines += ["", "timeline:", self.timeline]
        return "\n".join(lines)


def run(scen: scenario_mod.Scenario, workdir: str = None) -> Result:
    """Run ``scen`` with KeyVRM acting on it and judge it (``ScenarioError`` for a config the API refuses)."""
    began = time.monotonic()
    harness = scenario_harness.Harness(scen.start(), workdir, durable_flows=scen.durable_flows,
                                       executor=scen.executor)
    try:
        return _judged_run(scen, harness, began)
    finally:
        harness.close()


def _judged_run(scen, harness, began):
    start_hosts = {vm.id: vm.host for vm in harness.region.vms.values()}
    watch = invariants.Invariants(harness)
    predict = prediction.PredictionWatch(harness)
    done, problems, violations = [], [], []
    pending = [act for act in scen.acts if not act.params.get("mid_cycle")]
    unfired = _schedule_mid_cycle(scen, harness, [act for act in scen.acts if act.params.get("mid_cycle")],
                                  done, problems)
    cycles = 0
    for cycles in range(1, scen.cycles + 1):
        if not harness.tick(CYCLE_TIMEOUT_S):
            problems.append("the flows the sweep resumed before cycle %d did not finish within %d wall seconds"
                            % (cycles, CYCLE_TIMEOUT_S))
            break
        while pending and pending[0].at_s <= harness.elapsed_s + 1e-6:
            act = pending.pop(0)
            problems += _perform(scen, harness, act, done)
        watch.before_cycle()
        predict.before_cycle()
        if not harness.cycle(CYCLE_TIMEOUT_S):
            problems.append("cycle %d did not finish within %d wall seconds" % (cycles, CYCLE_TIMEOUT_S))
            break
        violations += [(harness.elapsed_s, text) for text in watch.after_cycle()]
        predict.after_cycle()
        harness.advance(scen.cycle_every_s)
    problems += ["operator: %s at %s never came due (the run ended at %s)"
                 % (act.describe(), timeline.clock_text(act.at_s), timeline.clock_text(harness.elapsed_s))
                 for act in pending + unfired]
    problems += scenario_expect.Check(harness, scenario_mod.parse_duration_s, start_hosts).run(scen.expect)
    if scen.expectations:
        problems += report.unmet_expectations(report.summarize(harness.region), scen.expectations)
    predicted = predict.verdicts()
    problems += ["failover prediction: " + v.describe() for v in predicted if v.kept is False]
    if scen.expect.get("failover_prediction_kept") and not any(v.kept for v in predicted):
        problems.append("expect.failover_prediction_kept: no host death was compared")
    return Result(scen.name, problems, violations, timeline.render(harness, done, violations),
                  outcomes(harness), cycles, time.monotonic() - began, predicted)


def _schedule_mid_cycle(scen, harness, acts, done, problems) -> list:
    """Put each of ``acts`` on the region's clock at its own time (a cycle may be running then).

    Their problems join ``problems``; the list returned holds the acts not fired yet.
    """
    unfired = list(acts)
    clock = harness.region.clock

    def fire(act):
        unfired.remove(act)
        problems.extend(_perform(scen, harness, act, done))

    for act in acts:
        clock.call_at(clock.start_s + act.at_s, fire, act)
    return unfired


def _perform(scen, harness, act, done):
    """Send ``act``'s REST calls at the newest microversion, as the CLI would; the problems.

    A refused start config is a ScenarioError. ``nova_live_migrate`` goes to Nova's API instead.
    """
    if act.action == "nova_live_migrate":
        return _nova_live_migrate(harness, act, done)
    calls = scenario_acts.calls(harness.db, act)
    if not calls:
        done.append((harness.elapsed_s, "%s: nothing matches" % act.describe()))
        return ["%s: %s matched no recommendation" % (scenario_mod.path_text(act.path), act.describe())]
    problems = []
    for method, path, body in calls:
        reply = harness.api(method, path, body, version="latest")
        done.append((harness.elapsed_s, "%s -> %s %s %d" % (act.describe(), method, path, reply.status)))
        wanted = act.params.get("expect_status")
        if (reply.status == wanted) if wanted else reply.ok:
            continue
        error = (reply.body.get("errors") or [{}])[0] if isinstance(reply.body, dict) else {}
        text = "%s %s answered %d: %s" % (method, path, reply.status, error.get("detail") or reply.body)
        if act.path[0] == "config" and act.at_s == 0 and not wanted:
            field = error.get("field")
            raise scen.error(act.path + ((field,) if field else ()), text)
        expected = ", expected %d" % wanted if wanted else ""
        problems.append("%s: %s%s" % (scenario_mod.path_text(act.path), text, expected))
    return problems


def _nova_live_migrate(harness, act, done):
    """The operator's own live migration of a VM through Nova's API; the problems (Nova's refusal)."""
    p = act.params
    try:
        migration = harness.emb.drivers.cloud.live_migrate(p["vm"], p["host"])
    except errors.DriverError as error:
        done.append((harness.elapsed_s, "%s -> Nova refused: %s" % (act.describe(), error)))
        return ["%s: Nova refused the live migration: %s" % (scenario_mod.path_text(act.path), error)]
    harness.operator_migrations.add(migration.id)
    done.append((harness.elapsed_s, "%s -> Nova accepted migration %s" % (act.describe(), migration.id)))
    return []


def outcomes(harness) -> dict:
    """KeyVRM's outcomes of a run, without ids or times: what must be the same on every run."""
    events = db_api.list_events(harness.db)
    index_of = {e["id"]: i for i, e in enumerate(events)}
    cycles = sorted(db_api.page_cycles(harness.db, 100000), key=lambda c: c["id"])
    return {
        "cycles": [(c["status"], c["reason_code"]) for c in cycles],
        "events": [(e["aggregate_name"], e["kind"], e["state"], e["status"], e["reason_code"]) for e in events],
        "recommendations": sorted((index_of.get(r["event_id"]), r["action"], r["vm_id"], r["source_host"],
                                   r["target_host"], r["status"], r["attempts"])
                                  for r in db_api.list_recommendations(harness.db)),
        "placement": sorted((vm.id, vm.host) for vm in harness.region.vms.values()),
        "alerts": sorted((a.kind, str(a.payload.get("host") or a.payload.get("vm_id"))) for a in harness.alerts),
    }
