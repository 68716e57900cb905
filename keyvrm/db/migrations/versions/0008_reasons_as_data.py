"""Reasons as data (issue 25): events.reasons and cycle_outcomes.reasons, a JSON list, replace the reason text

The text was ``[code] message; [code] message`` (messages may hold "; " themselves, and
it was cut at 8,000 characters). Each row's text becomes the list the engine now keeps
(``keyvrm.model.reason_list.ReasonList.to_json``): one entry per ``[code] message``,
split only where "; " is followed by the next ``[code] ``, a repeated identical entry
once, a part without a code under the row's ``reason_code`` (e.g. the executor's
"2 succeeded, 1 failed"), at most ``PER_CODE`` entries per code with the rest counted
(their keys kept in ``omitted``). The host and VM of converted entries are unknown
(null) and their details empty: the text never held them. ``reason_code`` is kept as it
was. Rows are converted in batches of ``BATCH`` by id.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05 12:00:00
"""

import re

from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

PER_CODE = 10  # keyvrm.model.reason_list.DEFAULT_PER_CODE when this was written
BATCH = 1000
_CODE = re.compile(r"\[([a-z0-9_.]+)\] ")
_NEXT_ENTRY = re.compile(r"; (?=\[[a-z0-9_.]+\] )")


def _entry(part, fallback_code):
    """(code, message) of one ``[code] message`` part; a repeated prefix ("[a] [a] x") counts once."""
    code = None
    found = _CODE.match(part)
    while found is not None and code in (None, found.group(1)):
        code, part = found.group(1), part[found.end():]
        found = _CODE.match(part)
    return code or fallback_code or "unknown", part


def converted(text, reason_code):
    """The stored list of the old reason ``text`` (None: no text)."""
    if text is None:
        return None
    entries, omitted, seen, kept = [], [], set(), {}
    for part in _NEXT_ENTRY.split(text):
        if not part.strip():
            continue
        code, message = _entry(part.strip(), reason_code)
        if (code, message) in seen:
            continue
        seen.add((code, message))
        kept[code] = kept.get(code, 0) + 1
        if kept[code] > PER_CODE:
            omitted.append([code, None, None])
        else:
            entries.append({"code": code, "message": message, "host": None, "vm_id": None, "details": {}})
    return {"entries": entries, "omitted": omitted}


def _convert(bind, name, id_type):
    table = sa.table(name, sa.column('id', id_type), sa.column('reason', sa.Text()),
                     sa.column('reason_code', sa.String(64)), sa.column('reasons', sa.JSON()))
    update = table.update().where(table.c.id == sa.bindparam('row_id')).values(
        reasons=sa.bindparam('listed', type_=sa.JSON()))
    last = None
    while True:
        query = sa.select(table.c.id, table.c.reason, table.c.reason_code).order_by(table.c.id).limit(BATCH)
        if last is not None:
            query = query.where(table.c.id > last)
        rows = bind.execute(query).all()
        if not rows:
            return
        bind.execute(update, [{"row_id": row.id, "listed": converted(row.reason, row.reason_code)}
                              for row in rows])
        last = rows[-1].id


def upgrade():
    for name in ('events', 'cycle_outcomes'):
        with op.batch_alter_table(name) as batch:
            batch.add_column(sa.Column('reasons', sa.JSON(), nullable=True))
    bind = op.get_bind()
    _convert(bind, 'events', sa.String(36))
    _convert(bind, 'cycle_outcomes', sa.Integer())
    with op.batch_alter_table('events') as batch:
        batch.drop_column('reason')
    with op.batch_alter_table('cycle_outcomes') as batch:
        batch.drop_column('reason')
        batch.alter_column('reasons', existing_type=sa.JSON(), nullable=False)
