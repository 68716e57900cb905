"""KeyVRM's database: models, repositories and alembic migrations (only this package touches SQL)."""
