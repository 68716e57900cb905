"""The global business config (one row) and the audit trail of every config change."""

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import settings


def _app_config_from_row(row):
    values = {f: getattr(row, f) for f in settings.APP_CONFIG_FIELDS}
    values["nova_filters"] = tuple(values["nova_filters"])
    values["ha_fence_interfaces"] = tuple(values["ha_fence_interfaces"])
    return settings.AppConfig(**values)


def _app_config_row(session, lock=False):
    """The single ``app_config`` row, inserted with the defaults on first use; row-locked if ``lock``.

    Concurrent first reads race to insert it: the insert runs in a savepoint, and the
    loser of the primary key reads the winner's row.
    """
    row = session.get(models.AppConfig, 1, with_for_update=lock or None)
    if row is None:
        common.insert_once(session, models.AppConfig(id=1))
        row = session.get(models.AppConfig, 1, with_for_update=lock or None, populate_existing=True)
    return row


def _json_value(value):
    return list(value) if isinstance(value, tuple) else value


def audit(session, scope, target, before, after, fields, changed_by, request_id):
    changed = []
    for field in fields:
        old, new = _json_value(getattr(before, field)), _json_value(getattr(after, field))
        if old != new:
            session.add(models.ConfigAudit(scope=scope, target=target, field=field,
                                           old_value=old, new_value=new,
                                           changed_by=changed_by, request_id=request_id))
            changed.append(field)
    return changed


def get_app_config(db):
    """The global business config (the defaults of SPEC section 2 until someone changes it)."""
    with db.writer() as session:
        return _app_config_from_row(_app_config_row(session))


def update_app_config(db, changes, changed_by, request_id=None):
    """Apply ``changes`` to the global config if every one is valid; audit each changed field."""
    if not changed_by:
        raise exception.InvalidField("changed_by", "who makes the change must be known")
    with db.writer() as session:
        row = _app_config_row(session, lock=True)
        before = _app_config_from_row(row)
        after = settings.validate_app_config(before, changes)
        changed = audit(session, "app", None, before, after, changes.keys(), changed_by,
                        request_id)
        for field in changed:
            setattr(row, field, _json_value(getattr(after, field)))
        if changed:
            row.updated_by = changed_by
        return after


def list_config_audit(db, scope=None, target=None, limit=100):
    """The newest audit rows first, optionally for one scope/target."""
    query = sa.select(models.ConfigAudit).order_by(models.ConfigAudit.id.desc()).limit(limit)
    if scope is not None:
        query = query.where(models.ConfigAudit.scope == scope)
    if target is not None:
        query = query.where(models.ConfigAudit.target == target)
    with db.reader() as session:
        return [dict(field=r.field, scope=r.scope, target=r.target, old_value=r.old_value,
                     new_value=r.new_value, changed_by=r.changed_by, changed_at=r.changed_at)
                for r in session.execute(query).scalars()]
