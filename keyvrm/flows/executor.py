"""ExecutorFlow: run one recommendation to its end, then settle its event if it was the last."""

from __future__ import annotations

from taskflow.patterns import linear_flow

from keyvrm.db import api as db_api
from keyvrm.executor import runner
from keyvrm.flows import events
from keyvrm.flows import steps


def run_one(resources, recommendation_id, tiers=None) -> str:
    """Run (or resume) one recommendation with this cycle's executor settings; its status.

    Every run counts in the engine's migrations in flight (``resources.in_flight``);
    ``tiers`` (an ``order.TierGate``) orders runs started together.
    """
    app_config = db_api.get_app_config(resources.db)
    return runner.run_recommendation(resources.db, resources.cloud, recommendation_id,
                                     clock=resources.clock,
                                     settings=resources.conf.executor_for(app_config),
                                     notifier=resources.notifier, tiers=tiers,
                                     in_flight=resources.in_flight)


class RunRecommendation(steps.FlowTask):
    """Run the recommendation; provides its status (idempotent: a final one is returned as is)."""

    default_provides = "recommendation_status"

    def __init__(self, resources):
        super().__init__(resources, "run_recommendation")

    def execute(self, recommendation_id):
        return run_one(self.resources, recommendation_id)


class SettleEvent(steps.FlowTask):
    """Complete the recommendation's event when all its recommendations are final."""

    default_provides = "event_state"

    def __init__(self, resources):
        super().__init__(resources, "settle_event")

    def execute(self, recommendation_id, recommendation_status):
        rec = db_api.get_recommendation(self.resources.db, recommendation_id)
        return events.settle(self.resources.db, rec["event_id"])


def build(resources, **store):
    """The ExecutorFlow of one recommendation (store: recommendation_id)."""
    return linear_flow.Flow("executor").add(RunRecommendation(resources), SettleEvent(resources))
