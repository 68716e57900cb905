"""Fixtures of the engine functional tests: Redis, and a cluster of forked engines on it."""

import os

import pytest
import redis

from tests.functional.engine import cluster as engine_cluster


@pytest.fixture
def redis_client():
    """A client of the test Redis; a failure in CI, a skip elsewhere when there is none."""
    client = redis.Redis.from_url(engine_cluster.REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("Redis is required in CI: %s" % exc)
        pytest.skip("no Redis at %s" % engine_cluster.REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def cluster(pg_databases, redis_client, tmp_path):
    """A ``Cluster`` on a fresh PostgreSQL database and its own Redis namespace; its engines killed after."""
    c = engine_cluster.Cluster(pg_databases(), redis_client, str(tmp_path / "cloud.jsonl"))
    yield c
    c.close()
