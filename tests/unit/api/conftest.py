"""Fixtures of the API tests: a seeded database and the noauth app over it."""

import pytest

from tests.unit.api import seed


@pytest.fixture
def seeded_db(sqlite_db):
    seed.seed(sqlite_db)
    return sqlite_db


@pytest.fixture
def casts():
    return seed.CastRecorder()


@pytest.fixture
def noauth_app(seeded_db, casts):
    return seed.make_app(seeded_db, rpc=casts)
