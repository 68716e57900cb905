"""Many rows into one table inside the caller's transaction: COPY on PostgreSQL, multi-row INSERTs elsewhere.

Harvest writes a row per host every cycle (10,000 in a large region). Multi-row INSERTs
send every value as SQL text the server parses; COPY streams the rows in PostgreSQL's
text format, about four times faster at 10,000 hosts (``tests/benchmarks/bench_api_hosts.py``).
"""

import datetime
import io
import json

import sqlalchemy as sa

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _escaped(text):
    return text.translate(_ESCAPES)


def _json_text(value):
    return json.dumps(value).translate(_ESCAPES)


def _bool_text(value):
    return "t" if value else "f"


def _text_of(column):
    """How a non-null value of ``column`` is written in COPY's text format."""
    kind = column.type
    if isinstance(kind, sa.JSON):
        return _json_text
    if isinstance(kind, sa.Boolean):
        return _bool_text
    if isinstance(kind, sa.DateTime):
        return datetime.datetime.isoformat
    if isinstance(kind, (sa.Integer, sa.Float)):
        return str
    return _escaped


def _copy(session, table, rows):
    columns = list(table.columns)
    fields = [(c.key, _text_of(c)) for c in columns]
    text = io.StringIO()
    for row in rows:
        text.write("\t".join("\\N" if row[key] is None else write(row[key]) for key, write in fields))
        text.write("\n")
    text.seek(0)
    cursor = session.connection().connection.cursor()
    try:
        cursor.copy_expert("COPY %s (%s) FROM STDIN" % (table.name, ", ".join(c.name for c in columns)), text)
    finally:
        cursor.close()


def insert_rows(session, table, rows):
    """Add ``rows`` (dicts with a value for every column of ``table``) in the session's transaction.

    PostgreSQL through psycopg2 copies them (``COPY ... FROM STDIN``); any other database
    or driver gets multi-row INSERTs (SQLAlchemy's insertmanyvalues).
    """
    if not rows:
        return
    dialect = session.get_bind().dialect
    if dialect.name == "postgresql" and dialect.driver == "psycopg2":
        _copy(session, table, rows)
    else:
        session.execute(table.insert(), rows)
