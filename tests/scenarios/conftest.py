"""The scenario suite: every ``tests/scenarios/**/*.yaml`` is one test, run by ``keyvrm.scenarios.check``.

Each file runs on the driven clock (the same outcome on every run and machine) with
KeyVRM's engine and API acting on its simulated region; the safety invariants are
checked after every cycle and the file's ``expect`` at the end. A failure prints the
problems and the run's timeline. ``keyvrm-sim check FILE`` runs one by hand.
With ``KEYVRM_SCENARIO_DIGESTS=FILE`` each run appends ``name digest`` to FILE: two runs
of the suite must write the same lines. With ``KEYVRM_FAILOVER_PREDICTIONS=FILE`` each run
appends one line per host death: whether the failover analysis before it predicted the
VMs HA left behind (``keyvrm.scenarios.prediction``).
"""

import os

import pytest

from keyvrm.scenarios import check
from keyvrm.scenarios import scenario


def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".yaml":
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    """A scenario file: one test named after it."""

    def collect(self):
        yield ScenarioItem.from_parent(self, name=self.path.stem)


class ScenarioFailed(Exception):
    """A scenario run broke an invariant or missed an expectation."""


class ScenarioItem(pytest.Item):
    """Load, run and judge one scenario file."""

    def runtest(self):
        result = check.run(scenario.load(str(self.path)))
        digests = os.environ.get("KEYVRM_SCENARIO_DIGESTS")
        if digests:
            with open(digests, "a", encoding="utf-8") as out:
                out.write("%s %s\n" % (self.path.relative_to(self.session.config.rootpath), result.digest))
        predictions = os.environ.get("KEYVRM_FAILOVER_PREDICTIONS")
        if predictions:
            with open(predictions, "a", encoding="utf-8") as out:
                for verdict in result.predictions:
                    out.write("%s %s\n" % (self.path.relative_to(self.session.config.rootpath), verdict.describe()))
        if not result.passed:
            raise ScenarioFailed(result.report())

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (ScenarioFailed, scenario.ScenarioError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, "scenario %s" % self.path.name
