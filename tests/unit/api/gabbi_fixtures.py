"""Gabbi fixtures: each YAML file runs against its own freshly seeded SQLite database."""

import shutil
import tempfile

from gabbi import fixture

from keyvrm.db import api as db_api
from keyvrm.db import migration
from tests.unit.api import seed

CURRENT = {}


class SeededDatabase(fixture.GabbiFixture):
    """A migrated SQLite database with the seed state, current for the file's tests."""

    def start_fixture(self):
        self.tmp = tempfile.mkdtemp(prefix="keyvrm-gabbi-")
        db = db_api.Database("sqlite:///%s/keyvrm.sqlite" % self.tmp)
        migration.upgrade(db.engine)
        seed.seed(db)
        CURRENT["db"] = db

    def stop_fixture(self):
        CURRENT.pop("app", None)
        CURRENT.pop("db").dispose()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _current_app(environ, start_response):
    if "app" not in CURRENT:
        CURRENT["app"] = seed.make_app(CURRENT["db"])
    return CURRENT["app"](environ, start_response)


def app():
    """gabbi's WSGI intercept: the noauth API over the database of the file now running."""
    return _current_app
