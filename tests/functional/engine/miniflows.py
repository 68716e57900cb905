"""A test-only flow registry: small flows over the KeyVRM tables, a file-backed cloud, Redis markers.

``mini_ha`` is an HA flow in miniature (open event -> plan -> evacuate -> close) whose
tasks are idempotent the way the real ones must be: a task re-run after a crash finds
what it already did (event, recommendations, journal lines, the VM's host in the cloud)
and does only what is missing. The cloud is a JSON-lines ledger fsynced per move, so it
survives SIGKILL and counts every evacuation the engine ever asked for.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from typing import Optional

from taskflow.patterns import linear_flow
from taskflow import task

from keyvrm.db import api as db_api


class LedgerCloud:
    """VM placement as an append-only file of moves over an initial placement."""

    def __init__(self, path: str, placement: Optional[dict] = None):
        self._path = path
        self._placement = dict(placement or {})

    def moves(self) -> list:
        """Every evacuation ever made, in order: [(vm_id, target), ...]."""
        if not os.path.exists(self._path):
            return []
        with open(self._path) as ledger:
            return [tuple(json.loads(line)) for line in ledger if line.strip()]

    def host_of(self, vm_id: str) -> str:
        host = self._placement.get(vm_id)
        for moved, target in self.moves():
            if moved == vm_id:
                host = target
        return host

    def evacuate(self, vm_id: str, target: str) -> None:
        with open(self._path, "a") as ledger:
            ledger.write(json.dumps([vm_id, target]) + "\n")
            ledger.flush()
            os.fsync(ledger.fileno())


@dataclasses.dataclass
class TestContext:
    """What the test flows reach besides the resources: engine name, Redis markers, the cloud."""

    engine_name: str = "engine"
    redis: object = None
    namespace: str = "keyvrm-test"
    cloud: Optional[LedgerCloud] = None


class OpenEvent(task.Task):
    default_provides = "event_id"

    def __init__(self, db):
        super().__init__(name="open_event")
        self._db = db

    def execute(self, aggregate):
        for event in db_api.page_events(self._db, limit=5, aggregate=aggregate, kind="HA"):
            if event["status"] != "completed":
                return event["id"]
        return db_api.create_event(self._db, aggregate, "HA", "HA")


class Plan(task.Task):
    default_provides = "recommendation_ids"

    def __init__(self, db):
        super().__init__(name="plan")
        self._db = db

    def execute(self, event_id, host, target, vm_ids):
        existing = {r["vm_id"]: r["id"] for r in db_api.list_recommendations(self._db, event_id=event_id)}
        for vm_id in vm_ids:
            if vm_id not in existing:
                existing[vm_id] = db_api.create_recommendation(
                    self._db, event_id, "evacuate", vm_id, host, target, auto_run=True, ha_round=1)
        return [existing[vm_id] for vm_id in vm_ids]


class Evacuate(task.Task):
    def __init__(self, db, cloud):
        super().__init__(name="evacuate")
        self._db = db
        self._cloud = cloud

    def execute(self, recommendation_ids):
        for rec_id in recommendation_ids:
            rec = db_api.get_recommendation(self._db, rec_id)
            if rec["status"] == "succeeded":
                continue
            journal = {op["kind"] for op in db_api.list_operations(self._db, rec_id)}
            if rec["status"] == "created":
                db_api.set_recommendation_status(self._db, rec_id, "running")
            if "start" not in journal:
                db_api.add_operation(self._db, rec_id, "start", 1)
            if self._cloud.host_of(rec["vm_id"]) != rec["target_host"]:
                self._cloud.evacuate(rec["vm_id"], rec["target_host"])
            if "execute" not in journal:
                db_api.add_operation(self._db, rec_id, "execute", 1)
            if "success" not in journal:
                db_api.add_operation(self._db, rec_id, "success", 1)
            db_api.set_recommendation_status(self._db, rec_id, "succeeded")


class CloseEvent(task.Task):
    def __init__(self, db):
        super().__init__(name="close_event")
        self._db = db

    def execute(self, event_id):
        db_api.set_event_status(self._db, event_id, "completed", state="healthy")


class RecordCycle(task.Task):
    """The test MasterFlow's one task: say in Redis which engine ran this cycle, and when."""

    def __init__(self, ctx):
        super().__init__(name="record_cycle")
        self._ctx = ctx

    def execute(self):
        if self._ctx.redis is None:
            return
        self._ctx.redis.rpush(self._ctx.namespace + ":test:cycles",
                              json.dumps([self._ctx.engine_name, time.time()]))


class WaitForRelease(task.Task):
    """Marks which engine runs it, then waits until the test sets the release key."""

    def __init__(self, ctx):
        super().__init__(name="wait_for_release")
        self._ctx = ctx

    def execute(self, marker):
        self._ctx.redis.rpush(self._ctx.namespace + ":test:" + marker, self._ctx.engine_name)
        while not self._ctx.redis.exists(self._ctx.namespace + ":test:release"):
            time.sleep(0.05)
        self._ctx.redis.rpush(self._ctx.namespace + ":test:done", self._ctx.engine_name)


def build_registry(ctx: TestContext) -> dict:
    """Flow factories by name, the way ``keyvrm.flows.registry.FLOWS`` maps them."""

    def mini_ha(resources, **store):
        return linear_flow.Flow("mini_ha").add(
            OpenEvent(resources.db), Plan(resources.db), Evacuate(resources.db, ctx.cloud),
            CloseEvent(resources.db))

    def master(resources, **store):
        return linear_flow.Flow("master").add(RecordCycle(ctx))

    def slow(resources, **store):
        return linear_flow.Flow("slow").add(WaitForRelease(ctx))

    return {"mini_ha": mini_ha, "master": master, "slow": slow}


MINI_HA_TASKS = ("open_event", "plan", "evacuate", "close_event")
