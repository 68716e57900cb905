"""What every resource module of ``keyvrm.db`` shares: choice checks, idempotent inserts, keyset paging.

Paged lists take ``limit`` and ``marker`` (the id of the last row of the previous page).
"""

from oslo_db import exception as db_exc
import sqlalchemy as sa

from keyvrm import exception


def check_choice(field, value, choices):
    """Refuse ``value`` unless it is one of ``choices`` (a tuple, or a ``keyvrm.model.states`` enum)."""
    choices = tuple(choices)
    if value not in choices:
        raise exception.InvalidField(field, "must be one of %s, got %r" % (", ".join(choices), value))


def insert_once(session, row):
    """Add ``row`` in a savepoint; a concurrent insert of the same primary key wins, silently."""
    try:
        with session.begin_nested():
            session.add(row)
    except db_exc.DBDuplicateEntry:
        pass


def marker_row(session, model, marker, id_column="id"):
    """The row a page's ``marker`` names (None without one); ``InvalidField`` if there is none."""
    if marker is None:
        return None
    row = session.get(model, marker)
    if row is None:
        raise exception.InvalidField("marker", f"no {model.__tablename__} row with {id_column} {marker!r}")
    return row


def keyset(query, column, id_column, marker_row, descending):
    """Order by (column, id) and keep only rows after ``marker_row`` in that order."""
    if descending:
        query = query.order_by(column.desc(), id_column.desc())
    else:
        query = query.order_by(column.asc(), id_column.asc())
    if marker_row is not None:
        value, ident = getattr(marker_row, column.key), getattr(marker_row, id_column.key)
        if descending:
            query = query.where(sa.or_(column < value, sa.and_(column == value, id_column < ident)))
        else:
            query = query.where(sa.or_(column > value, sa.and_(column == value, id_column > ident)))
    return query


def row_or_404(session, model, ident, what, lock=False):
    """The row ``ident`` of ``model`` (row-locked with ``lock``: checks and writes that follow are atomic)."""
    row = session.get(model, ident, with_for_update=lock or None)
    if row is None:
        raise exception.NotFound(f"{what} {ident} not found")
    return row


def columns(row, model):
    """Every column of ``row`` by name: how the API shows a row as it is stored."""
    return {c.name: getattr(row, c.name) for c in model.__table__.columns}
