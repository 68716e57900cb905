"""Fixtures of the functional tests beyond the shared ones: a PostgreSQL server of the test's own."""

import shutil
import tempfile

import pytest

from tests.functional import pgcluster


@pytest.fixture
def private_pg():
    """A started private PostgreSQL cluster (``pgcluster.PrivateCluster``), stopped and removed after.

    Its directory is not under pytest's tmp_path, which the ``postgres`` user cannot enter.
    """
    base_dir = tempfile.mkdtemp(prefix="keyvrm-pg-")
    cluster = pgcluster.PrivateCluster(base_dir).init()
    cluster.start()
    yield cluster
    try:
        cluster.stop("immediate")
    except Exception:  # already stopped by the test
        pass
    shutil.rmtree(base_dir, ignore_errors=True)
