"""The database a process opens follows [database]: its URL and its pool options."""

from oslo_config import cfg

from keyvrm import conf as keyvrm_conf
from keyvrm.db import session


def _conf(tmp_path, **database):
    conf = cfg.ConfigOpts()
    keyvrm_conf.register_all(conf)
    conf([], project="keyvrm", default_config_files=[])
    conf.set_override("connection", "sqlite:///%s/state/keyvrm.sqlite" % tmp_path, group="database")
    for name, value in database.items():
        conf.set_override(name, value, group="database")
    return conf


def test_pool_options_of_the_database_group_reach_a_server_database_engine(tmp_path):
    conf = _conf(tmp_path, max_pool_size=7, max_overflow=3, pool_timeout=11, connection_recycle_time=600,
                 max_retries=4)
    conf.set_override("connection", "postgresql+psycopg2://keyvrm@db.example/keyvrm", group="database")
    options = session.engine_options(conf.database)
    assert (options["max_pool_size"], options["max_overflow"], options["pool_timeout"],
            options["connection_recycle_time"], options["max_retries"]) == (7, 3, 11, 600, 4)


def test_an_sqlite_database_gets_the_engine_options_but_no_pool_sizes(tmp_path):
    conf = _conf(tmp_path, max_pool_size=7, sqlite_synchronous=False)
    options = session.engine_options(conf.database)
    assert "max_pool_size" not in options and options["sqlite_synchronous"] is False
    db = session.database_from_conf(conf)
    try:
        assert (tmp_path / "state").is_dir()  # the SQLite state directory is made
        db.ping()
    finally:
        db.dispose()
