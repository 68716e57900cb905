"""Alembic environment: runs migrations on the connection keyvrm.db.migration hands over."""

from alembic import context

from keyvrm.db import migration
from keyvrm.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online():
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    import sqlalchemy as sa
    engine = sa.create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        _run(connection)


def _run(connection):
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite",
                      compare_type=True, include_object=migration.include_object)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
