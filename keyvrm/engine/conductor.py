"""The conductor every engine runs: claims jobs from the jobboard and runs their flows to the end.

A TaskFlow conductor whose engine for a job is rebuilt from the job's persisted flow
(registered name + store) with this engine's live resources, instead of TaskFlow's
import-a-factory convention (our flows need objects that cannot be persisted). A stopped
conductor suspends the flows it runs after their current task and abandons their jobs,
so another engine (or this one, restarted) resumes them.
"""

from __future__ import annotations

import logging

from taskflow.conductors.backends import impl_nonblocking

from keyvrm.engine import dispatch
from keyvrm.engine import persistence as engine_persistence

LOG = logging.getLogger(__name__)


class FlowConductor(impl_nonblocking.NonBlockingConductor):
    """Claims KeyVRM jobs and runs them with ``resources`` (an ``EngineResources``)."""

    def __init__(self, name, jobboard, persistence: engine_persistence.Persistence, resources_provider,
                 flows, *, listener_factories=(), max_simultaneous_jobs=4, wait_timeout_s=0.2):
        super().__init__(name, jobboard, persistence=persistence.backend,
                         max_simultaneous_jobs=max_simultaneous_jobs, wait_timeout=wait_timeout_s)
        self._keyvrm_persistence = persistence
        self._resources_provider = resources_provider
        self._flows = flows
        self._listener_factories = tuple(listener_factories)
        self._records = {}
        self.notifier.register("job_consumed", self._forget_finished)

    def _engine_from_job(self, job):
        record = self._keyvrm_persistence.find(job.book.uuid)
        if record is None:
            raise LookupError("job %s: its flow is no longer persisted" % job.uuid)
        engine = dispatch.load_engine(self._keyvrm_persistence, self._flows, record,
                                      self._resources_provider())
        self._records[job.uuid] = record
        return engine

    def _listeners_from_job(self, job, engine):
        listeners = super()._listeners_from_job(job, engine)
        record = self._records.get(job.uuid)
        return listeners + [factory(engine, record) for factory in self._listener_factories]

    def _forget_finished(self, event_type, details):
        job = details["job"]
        self._records.pop(job.uuid, None)
        self._keyvrm_persistence.forget(job.book.uuid)
