"""Leadership: one holder of the lock at a time; a holder that cannot refresh stands down."""

from urllib import parse

import tooz

from keyvrm.engine import leader


class Backend:
    """One lock's state, as a coordination backend would keep it."""

    def __init__(self):
        self.holder = None


class Lock:
    def __init__(self, backend, member):
        self.backend, self.member = backend, member

    def acquire(self, blocking=True):
        if self.backend.holder is None:
            self.backend.holder = self.member
            return True
        return False

    def heartbeat(self):
        if self.backend.holder != self.member:
            raise tooz.ToozError("lock not owned")
        return True

    def release(self):
        self.backend.holder = None
        return True


class Coordinator:
    def __init__(self, backend, member):
        self.backend, self.member, self.started = backend, member, False

    def start(self, start_heart=False):
        self.started = True

    def get_lock(self, name):
        return Lock(self.backend, self.member)

    def stop(self):
        self.started = False


def election(backend, member):
    e = leader.LeaderElection("redis://x", member, 5, coordinator=Coordinator(backend, member))
    e.start()
    return e


def test_only_one_engine_leads():
    backend = Backend()
    a, b = election(backend, "a"), election(backend, "b")
    assert a.tick() and not b.tick()
    assert a.tick() and not b.tick()


def test_lock_lost_to_expiry_stands_the_old_leader_down_and_the_next_takes_over():
    backend = Backend()
    a, b = election(backend, "a"), election(backend, "b")
    a.tick()
    backend.holder = None  # a stopped refreshing; the backend expired its lock
    assert b.tick()
    assert not a.tick()
    assert backend.holder == "b"


def test_stop_releases_leadership_at_once():
    backend = Backend()
    a, b = election(backend, "a"), election(backend, "b")
    a.tick()
    a.stop()
    assert backend.holder is None and not a.is_leader
    assert b.tick()


def test_lock_ttl_goes_into_the_tooz_url_unless_given():
    query = parse.parse_qs(parse.urlsplit(leader.with_lock_ttl("redis://h:6379?foo=1", 7)).query)
    assert query == {"foo": ["1"], "lock_timeout": ["7"], "timeout": ["7"]}
    kept = parse.parse_qs(parse.urlsplit(leader.with_lock_ttl("redis://h?lock_timeout=3", 7)).query)
    assert kept["lock_timeout"] == ["3"]


def test_a_single_engine_always_leads():
    assert leader.SoleLeader().tick()
