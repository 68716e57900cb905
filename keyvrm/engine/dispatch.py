"""Where flows run: in this engine's thread pool (local) or as jobs on a TaskFlow jobboard.

Both dispatchers persist a flow (``persistence.Persistence.create``) before anything
runs it, so a crash at any point leaves it to be resumed; both rebuild a flow by its
registered name from ``keyvrm.flows.registry`` (or a test's own mapping) and the
persisted store. ``LocalDispatcher`` is the embedded default and the demo's;
``JobboardDispatcher`` only posts: conductors (``keyvrm.engine.conductor``) in every
engine claim and run the jobs.
"""

from __future__ import annotations

from concurrent import futures
import contextlib
import logging
import threading
from typing import Callable, Iterable, Mapping, Optional

from taskflow import engines as taskflow_engines
from taskflow import exceptions as taskflow_exc

from keyvrm.db import availability
from keyvrm.engine import persistence as engine_persistence
from keyvrm import exception
from keyvrm.flows import registry
from keyvrm.flows import resources as flow_resources

LOG = logging.getLogger(__name__)

# A callable(taskflow_engine, record) -> TaskFlow listener, attached to every flow run.
ListenerFactory = Callable[[object, engine_persistence.FlowRecord], object]


def check_flow_name(flows: Mapping[str, Callable], name: str) -> None:
    """Refuse a flow name the registry does not know (``InvalidField`` naming ``flow``)."""
    if name not in flows:
        raise exception.InvalidField("flow", f"unknown flow {name!r}; known: {', '.join(sorted(flows))}")


def load_engine(persistence: engine_persistence.Persistence, flows: Mapping[str, Callable],
                record: engine_persistence.FlowRecord, resources):
    """A TaskFlow engine for a persisted flow: finished tasks are skipped, the rest (re)run."""
    check_flow_name(flows, record.flow_name)
    flow = flows[record.flow_name](resources, **record.store)
    return taskflow_engines.load(flow, store=record.store, flow_detail=record.flow_detail,
                                 book=record.book, backend=persistence.backend)


class _ResourcesOnce:
    """Builds the engine's resources on first use, handing them the dispatcher they dispatch through."""

    def __init__(self, factory, dispatcher):
        self._factory = factory
        self._dispatcher = dispatcher
        self._lock = threading.Lock()
        self._value = None

    def get(self):
        with self._lock:
            if self._value is None:
                self._value = self._factory(self._dispatcher)
            return self._value


class LocalDispatcher(flow_resources.Dispatcher):
    """Runs dispatched flows in a thread pool of this process, persisted so a restart resumes them.

    ``resources_factory(dispatcher) -> EngineResources`` is called once, on first use.
    """

    def __init__(self, resources_factory, persistence: engine_persistence.Persistence, *,
                 flows: Optional[Mapping[str, Callable]] = None, workers: int = 4,
                 listener_factories: Iterable[ListenerFactory] = (), baton=None):
        super().__init__()
        self._baton = baton  # the simulator's keyvrm.simulator.baton.Baton: one flow runs at a time
        self.persistence = persistence
        self.flows = registry.FLOWS if flows is None else flows
        self._resources = _ResourcesOnce(resources_factory, self)
        self._listener_factories = tuple(listener_factories)
        self._pool = futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="keyvrm-flow")
        self._idle = threading.Condition()
        self._pending = {}
        self._running = 0

    @property
    def resources(self):
        return self._resources.get()

    @property
    def running(self) -> int:
        """How many dispatched flows have a thread of the pool now (queued ones not counted)."""
        return self._running

    def dispatch(self, name: str, store: dict) -> None:
        """Persist flow ``name`` with ``store`` and run it in the pool; returns at once."""
        check_flow_name(self.flows, name)
        self._submit(self.persistence.create(name, store, engine_persistence.LOCAL))

    def resume_unfinished(self) -> int:
        """Run again every persisted local flow that did not finish; returns how many."""
        records = self.persistence.unfinished(engine_persistence.LOCAL)
        for record in records:
            LOG.info("resuming flow %s (%s) store=%s", record.flow_name, record.flow_uuid, record.store)
            self._submit(record)
        return len(records)

    def wait_idle(self, timeout_s: Optional[float] = None) -> bool:
        """Wait until no dispatched flow is queued or running (children included); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._pending, timeout=timeout_s)

    def has_pending(self, name: str) -> bool:
        """Whether a flow ``name`` is queued or running in this engine."""
        with self._idle:
            return name in self._pending

    def stop(self) -> None:
        """Stop taking flows; running ones finish their current task and are left suspended (resumable)."""
        with self._idle:
            self.stopping.set()
        self._pool.shutdown(wait=True)

    def _submit(self, record):
        with self._idle:
            if self.stopping.is_set():
                LOG.info("engine stopping: flow %s (%s) left for the next start",
                         record.flow_name, record.flow_uuid)
                return
            self._pending[record.flow_name] = self._pending.get(record.flow_name, 0) + 1
        self._pool.submit(self._run, record, self._baton.admit() if self._baton else None)

    def _run(self, record, token=None):
        again = record
        with self._idle:
            self._running += 1
        try:
            if token is not None:
                self._baton.enter(token)
            while again is not None:
                again = self._run_once(again)
        except Exception:
            LOG.exception("flow %s (%s) could not run; it stays persisted", record.flow_name, record.flow_uuid)
        finally:
            if token is not None:
                self._baton.leave()
            with self._idle:
                self._running -= 1
                self._pending[record.flow_name] -= 1
                if not self._pending[record.flow_name]:
                    del self._pending[record.flow_name]
                self._idle.notify_all()

    def _run_once(self, record):
        """Run ``record`` to its end; the record to run again when the database failed under TaskFlow.

        TaskFlow records each step's state in the database: when that fails the flow is
        left as persisted (as after a crash), and runs again from there once the database
        answers. None when it ended, or is left for the next start (engine stopping).
        """
        try:
            engine = load_engine(self.persistence, self.flows, record, self.resources)
            run_to_end(engine, record, self._listener_factories, self.stopping.is_set)
        except Exception as exc:
            if not availability.is_database_unavailable(exc):
                raise
            LOG.warning("flow %s (%s): database unavailable (%s); it resumes once the database answers",
                        record.flow_name, record.flow_uuid, availability.describe(exc))
            if not availability.wait_until_available(self.persistence.ping, self.stopping.is_set):
                LOG.info("engine stopping: flow %s (%s) left for the next start", record.flow_name,
                         record.flow_uuid)
                return None
            return self.persistence.find(record.book.uuid)
        if engine.storage.get_flow_state() in engine_persistence.FINISHED_STATES:
            self.persistence.forget(record.book.uuid)
        return None


def run_to_end(engine, record, listener_factories, should_stop) -> None:
    """Run a loaded engine with the listeners until it ends, or suspend it after a task once ``should_stop()``.

    A failed (reverted) flow is logged, not raised, unless it failed because the database
    went away (then it is raised, and the flow is resumed from the database).
    """
    with contextlib.ExitStack() as stack:
        for factory in listener_factories:
            stack.enter_context(factory(engine, record))
        try:
            suspended = False
            for _state in engine.run_iter():
                if not suspended and should_stop():
                    LOG.info("stopping: flow %s (%s) suspends after its running task",
                             record.flow_name, record.flow_uuid)
                    engine.suspend()
                    suspended = True
        except Exception as exc:
            if engine.storage.get_flow_state() not in engine_persistence.FINISHED_STATES or \
                    lost_the_database(exc):
                raise
            LOG.exception("flow %s (%s) failed and was reverted", record.flow_name, record.flow_uuid)


def lost_the_database(exc) -> bool:
    """Whether a flow failed because the database went away (TaskFlow's own writes included).

    Its revert then happened only in memory: the database still holds the flow as it was
    before the outage, and it resumes from there.
    """
    if isinstance(exc, taskflow_exc.WrappedFailure):
        return any(availability.is_database_unavailable(failure.exception) for failure in exc)
    return availability.is_database_unavailable(exc)


class JobboardDispatcher(flow_resources.Dispatcher):
    """Posts dispatched flows as jobs on a TaskFlow jobboard; a conductor in some engine runs each."""

    JOB_PREFIX = "keyvrm-"

    def __init__(self, resources_factory, persistence: engine_persistence.Persistence, jobboard, *,
                 flows: Optional[Mapping[str, Callable]] = None):
        super().__init__()
        self.persistence = persistence
        self.jobboard = jobboard
        self.flows = registry.FLOWS if flows is None else flows
        self._resources = _ResourcesOnce(resources_factory, self)

    @property
    def resources(self):
        return self._resources.get()

    def dispatch(self, name: str, store: dict) -> None:
        """Persist flow ``name`` (logbook first: the job only names it) and post it as a job."""
        check_flow_name(self.flows, name)
        record = self.persistence.create(name, store, engine_persistence.JOB)
        self.jobboard.post(self.JOB_PREFIX + name, book=record.book,
                           details={"flow_uuid": record.flow_uuid, "store": record.store})

    def has_pending(self, name: str) -> bool:
        """Whether a job for flow ``name`` is on the board (posted, claimed or running, not consumed)."""
        return any(job.name == self.JOB_PREFIX + name for job in self.jobboard.iterjobs(ensure_fresh=True))
