"""The base of every KeyVRM flow step: the engine's resources, and a database outage waited out.

TaskFlow fails a flow whose task raises, reverts its finished tasks and the engine then
forgets it: a short database outage would leave cycles ``running``, events open and
VMs locked with nothing to finish them. So a step whose ``execute`` fails because the
database cannot be reached waits until the database answers and runs again from its
start, as it would after a crash (every step is written to be re-run: what it already
recorded is found again). While the engine stops, the error is raised instead; TaskFlow
cannot record the failure either, so the flow stays persisted as running and the next
start resumes it.
"""

from __future__ import annotations

import functools
import time

from oslo_log import log as logging
from taskflow import task

from keyvrm.db import availability

LOG = logging.getLogger(__name__)


def _waiting_out_outages(execute):
    @functools.wraps(execute)
    def run_until_the_database_answers(self, *args, **kwargs):
        while True:
            try:
                return execute(self, *args, **kwargs)
            except Exception as exc:
                if not availability.is_database_unavailable(exc):
                    raise
                self.wait_for_database(exc)
    return run_until_the_database_answers


class FlowTask(task.Task):
    """A flow step with the engine's ``resources``; its ``execute`` survives database outages."""

    def __init__(self, resources, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.resources = resources

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "execute" in cls.__dict__:
            cls.execute = _waiting_out_outages(cls.__dict__["execute"])

    def wait_for_database(self, exc) -> None:
        """Wait until the database answers again; re-raise ``exc`` if the engine stops first."""
        res = self.resources
        LOG.warning("step %s: database unavailable (%s); it runs again once the database answers",
                    self.name, availability.describe(exc))
        began = time.monotonic()
        if not availability.wait_until_available(res.db.ping, res.engine_stopping):
            LOG.info("step %s: engine stopping while the database is unavailable; the flow resumes "
                     "at the next start", self.name)
            raise exc
        LOG.info("step %s: database available again after %.1f s; running the step again",
                 self.name, time.monotonic() - began)
