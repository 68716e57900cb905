"""An engine process running the real HAFlow on a simulated region that survives SIGKILL.

The region is pickled to a file at every task boundary of every flow (before the test's
kill listener runs), so what the killed process did to the simulated cloud is there for
the restarted one, as a real cloud's state would be. ``main`` is a fork target:

  main([db_url, region_file, "cycle" | "resume"])

``cycle`` starts one MasterFlow (which dispatches the HAFlow); ``resume`` only resumes
what is unfinished. Either way the process exits when its flows are done.
KEYVRM_TEST_KILL_AT=<task>:<before|after> kills it at that boundary (engine_proc.KillAt).
"""

import copyreg
import os
import pickle
import threading

from taskflow.listeners import base as listener_base
from taskflow import states

from keyvrm.demo import embedded
from keyvrm.engine import dispatch
from keyvrm.engine import persistence as engine_persistence
from tests.functional.engine import engine_proc

copyreg.pickle(type(threading.Lock()), lambda lock: (threading.Lock, ()))
copyreg.pickle(type(threading.RLock()), lambda lock: (threading.RLock, ()))


def save_region(region, path):
    """Write the region atomically (a kill leaves the old or the new file, never half of one)."""
    with region.lock:
        data = pickle.dumps(region)
    with open(path + ".tmp", "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(path + ".tmp", path)


def load_region(path):
    with open(path, "rb") as source:
        return pickle.load(source)


class SaveRegion(listener_base.Listener):
    """Pickles the region at every task state change."""

    def __init__(self, engine, region, path):
        super().__init__(engine, task_listen_for=(states.RUNNING, states.SUCCESS, states.FAILURE),
                         flow_listen_for=())
        self._region, self._path = region, path

    def _task_receiver(self, state, details):
        save_region(self._region, self._path)


def main(argv):
    db_url, region_path, mode = argv
    region = load_region(region_path)
    emb = embedded.EmbeddedRegion(region, db_url)
    persistence = engine_persistence.Persistence(db_url)
    persistence.upgrade()
    factories = [lambda engine, record: SaveRegion(engine, region, region_path)]
    factories += list(engine_proc.listener_factories())
    dispatcher = dispatch.LocalDispatcher(emb.resources, persistence, listener_factories=factories)
    dispatcher.resume_unfinished()
    if mode == "cycle":
        dispatcher.dispatch("master", {})
    assert dispatcher.wait_idle(120)
    dispatcher.stop()
    save_region(region, region_path)
    persistence.close()
    emb.db.dispose()
