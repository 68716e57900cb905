"""The conductor every engine runs: claims jobs from the jobboard and runs their flows to the end.

A TaskFlow conductor whose engine for a job is rebuilt from the job's persisted flow
(registered name + store) with this engine's live resources, instead of TaskFlow's
import-a-factory convention (our flows need objects that cannot be persisted). A stopped
conductor suspends the flows it runs after their current task and abandons their jobs,
so another engine (or this one, restarted) resumes them.

A job whose flow cannot be loaded or run because the database went away is not consumed
(TaskFlow would then forget it) but handed back to the board once the database answers;
a conductor claims it again and resumes the flow from what the database holds.
"""

from __future__ import annotations

import logging

from taskflow.conductors.backends import impl_nonblocking
from taskflow import exceptions as taskflow_exc

from keyvrm.db import availability
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

    def _dispatch_job(self, job):
        try:
            return super()._dispatch_job(job)
        except Exception as exc:  # loading the job's flow failed (running failures are caught inside)
            if not availability.is_database_unavailable(exc):
                raise
            self._wait_for_database(job, exc)
            return False  # not consumed: abandoned, claimed again

    def _engine_from_job(self, job):
        record = self._keyvrm_persistence.find(job.book.uuid)
        if record is None:
            raise LookupError("job %s: its flow is no longer persisted" % job.uuid)
        engine = dispatch.load_engine(self._keyvrm_persistence, self._flows, record,
                                      self._resources_provider())
        self._records[job.uuid] = record
        run_iter = engine.run_iter

        def run_iter_handing_back_on_outage(*args, **kwargs):
            try:
                yield from run_iter(*args, **kwargs)
            except Exception as exc:
                if not dispatch.lost_the_database(exc):
                    raise
                self._wait_for_database(job, exc)
                # TaskFlow's conductor abandons (does not consume) a job that failed on storage
                raise taskflow_exc.StorageFailure("database lost while running job %s" % job.uuid) from exc
        engine.run_iter = run_iter_handing_back_on_outage
        return engine

    def _wait_for_database(self, job, exc):
        LOG.warning("job %s: database unavailable (%s); it goes back to the board once the database "
                    "answers", job.uuid, availability.describe(exc))
        availability.wait_until_available(self._keyvrm_persistence.ping, self._wait_timeout.is_stopped)

    def _listeners_from_job(self, job, engine):
        listeners = super()._listeners_from_job(job, engine)
        record = self._records.get(job.uuid)
        return listeners + [factory(engine, record) for factory in self._listener_factories]

    def _forget_finished(self, event_type, details):
        job = details["job"]
        self._records.pop(job.uuid, None)
        self._keyvrm_persistence.forget(job.book.uuid)
