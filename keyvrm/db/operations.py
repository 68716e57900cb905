"""Operations: the journal of a recommendation's execution, one line per step."""

import sqlalchemy as sa

from keyvrm.db import common
from keyvrm.db import models
from keyvrm import exception
from keyvrm.model import states


def add_operation(db, rec_id, kind, attempt, message=None, error=None, duration_s=None):
    """Append one line to a recommendation's journal; the recommendation's ``attempts`` follows it.

    ``attempts`` is the highest attempt the journal names, raised in the same transaction
    by a conditional UPDATE (never lowered, whatever the order concurrent lines commit in).
    """
    common.check_choice("kind", kind, states.OperationKind)
    with db.writer() as session:
        if session.get(models.Recommendation, rec_id) is None:
            raise exception.InvalidField("recommendation_id", f"recommendation {rec_id} not found")
        session.add(models.Operation(recommendation_id=rec_id, kind=kind, attempt=attempt,
                                     message=message, error=error, duration_s=duration_s))
        rec = models.Recommendation
        session.execute(sa.update(rec).where(rec.id == rec_id, rec.attempts < attempt).values(attempts=attempt))


def list_operations(db, rec_id):
    """A recommendation's journal, oldest first."""
    query = sa.select(models.Operation).where(
        models.Operation.recommendation_id == rec_id).order_by(models.Operation.id)
    with db.reader() as session:
        return [dict(kind=r.kind, attempt=r.attempt, message=r.message, error=r.error,
                     duration_s=r.duration_s, created_at=r.created_at)
                for r in session.execute(query).scalars()]


def list_recommendation_operations(db, rec_id):
    """A recommendation's journal with row ids, oldest first (``NotFound`` for no such one)."""
    with db.reader() as session:
        if session.get(models.Recommendation, rec_id) is None:
            raise exception.NotFound(f"recommendation {rec_id} not found")
        query = sa.select(models.Operation).where(
            models.Operation.recommendation_id == rec_id).order_by(models.Operation.id)
        return [common.columns(r, models.Operation) for r in session.execute(query).scalars()]
