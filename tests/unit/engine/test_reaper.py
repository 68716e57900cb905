"""The reaper hands back jobs of conductors whose liveness expired, and only those."""

import dataclasses

from taskflow import exceptions as taskflow_exc

from keyvrm.engine import reaper


@dataclasses.dataclass(frozen=True)
class Job:
    uuid: str
    name: str = "keyvrm-executor"


class Board:
    """A jobboard's claim bookkeeping: owner per job, abandon only by the owner's name."""

    def __init__(self, owners):
        self.owners = dict(owners)
        self.jobs = [Job(uuid) for uuid in owners]

    def iterjobs(self, ensure_fresh=False):
        return iter(self.jobs)

    def find_owner(self, job):
        if self.owners[job.uuid] is None:
            raise TypeError("<class 'NoneType'> can't be decoded")  # what TaskFlow's Redis board does
        return self.owners[job.uuid]

    def abandon(self, job, who):
        if self.owners[job.uuid] != who:
            raise taskflow_exc.JobFailure("not owner")
        self.owners[job.uuid] = None


class Alive:
    def __init__(self, *names):
        self.names = set(names)

    def is_alive(self, name):
        return name in self.names


def test_jobs_of_an_expired_conductor_are_abandoned():
    board = Board({"j1": "dead", "j2": "dead"})
    reaped = reaper.reap(board, Alive("me"), "me")
    assert sorted(r.job_uuid for r in reaped) == ["j1", "j2"]
    assert board.owners == {"j1": None, "j2": None}


def test_jobs_of_live_conductors_unclaimed_jobs_and_own_jobs_stay():
    board = Board({"j1": "other", "j2": None, "j3": "me"})
    assert reaper.reap(board, Alive("other"), "me") == []
    assert board.owners == {"j1": "other", "j2": None, "j3": "me"}


def test_own_jobs_are_not_reaped_even_when_own_key_expired():
    board = Board({"j1": "me"})
    assert reaper.reap(board, Alive(), "me") == []
    assert board.owners["j1"] == "me"


def test_job_reclaimed_meanwhile_is_skipped():
    class Racing(Board):
        def abandon(self, job, who):
            raise taskflow_exc.JobFailure("owner changed")

    assert reaper.reap(Racing({"j1": "dead", "j2": "dead"}), Alive(), "me") == []


def test_restarted_conductor_releases_only_its_own_old_claims():
    board = Board({"j1": "me", "j2": "other"})
    assert reaper.release_own(board, "me") == ["j1"]
    assert board.owners == {"j1": None, "j2": "other"}


class FakeRedis:
    def __init__(self):
        self.values = {}

    def set(self, key, value, ex=None, get=False):
        previous = self.values.get(key)
        self.values[key] = (value, ex)
        return previous

    def exists(self, key):
        return int(key in self.values)

    def delete(self, key):
        self.values.pop(key, None)


def test_liveness_beat_sets_key_with_ttl_and_reports_a_lapse():
    client = FakeRedis()
    liveness = reaper.Liveness(client, "ns", ttl_s=7)
    assert liveness.beat("a") is False  # no key before: first beat (or it had expired)
    assert liveness.beat("a") is True
    assert client.values["ns:conductor:a"][1] == 7
    assert liveness.is_alive("a") and not liveness.is_alive("b")
    liveness.clear("a")
    assert not liveness.is_alive("a")
