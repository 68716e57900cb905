"""The engine's start-up sweep reads here what is still open: cycles running, events open, hosts in an HA run."""

import sqlalchemy as sa

from keyvrm.db import models
from keyvrm.model import states


def list_open_work(db, before):
    """Cycles running, events open, and hosts in an HA run, all begun before ``before``.

    A dict: ``cycles`` [id], ``events`` [{id, cycle_id, aggregate_name, kind, status}],
    ``hosts`` [{host, state, event_id}].
    """
    with db.reader() as session:
        cycles = session.execute(sa.select(models.Cycle.id).where(
            models.Cycle.status == states.CycleStatus.RUNNING, models.Cycle.started_at < before)
            .order_by(models.Cycle.id)).scalars().all()
        events = [dict(id=e.id, cycle_id=e.cycle_id, aggregate_name=e.aggregate_name, kind=e.kind,
                       status=e.status)
                  for e in session.execute(sa.select(models.Event).where(
                      models.Event.status != states.EventStatus.COMPLETED, models.Event.created_at < before)
                      .order_by(models.Event.created_at)).scalars()]
        hosts = [dict(host=h.host, state=h.state, event_id=h.event_id)
                 for h in session.execute(sa.select(models.HypervisorState).where(
                     models.HypervisorState.state.in_(states.HYPERVISOR_IN_HA_RUN),
                     sa.or_(models.HypervisorState.state_since.is_(None),
                            models.HypervisorState.state_since < before))
                     .order_by(models.HypervisorState.host)).scalars()]
    return dict(cycles=list(cycles), events=events, hosts=hosts)
