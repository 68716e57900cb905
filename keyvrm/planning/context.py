"""The planning state of one aggregate: host states, ledger and target selector.

Built once per planner run from the snapshot (only the aggregate's hosts and their VMs
are visited), so a plan never loops over the whole region per VM.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Optional

from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity
from keyvrm.scheduling import filters as filters_mod
from keyvrm.scheduling.host_state import HostStates
from keyvrm.scheduling.selector import DiscardedInputs
from keyvrm.scheduling.selector import TargetSelector


@dataclasses.dataclass
class AggregateContext:
    """Everything a planner of one aggregate reads or updates."""

    aggregate: str
    hosts: tuple  # Hypervisor, in aggregate order
    vms_by_host: dict
    ledger: capacity.Ledger
    selector: TargetSelector
    index: m.SnapshotIndex

    _free_ram_order: Optional[tuple] = dataclasses.field(default=None, init=False, repr=False)

    def free_ram_order(self) -> list:
        """(-free RAM, host) of every host now: what a planner's heap starts from.

        Kept while the ledger's generation stays the same, so plans made in ``trial``
        blocks (each restores every host it touched, and the generation) share one
        reading of every host.
        """
        generation = self.ledger.generation
        if self._free_ram_order is not None and self._free_ram_order[0] == generation:
            return self._free_ram_order[1]
        states = self.ledger.hosts
        order = [(-states.free_of(h.name, m.MEMORY_MB), h.name) for h in self.hosts]
        self._free_ram_order = (generation, order)
        return order

    @contextlib.contextmanager
    def trial(self):
        """A plan made inside the block leaves this context as it found it (``Ledger.trial``).

        So one context serves many plans of the same snapshot (the failover analysis plans
        every host's failure on it). The inputs the checks could not know are not
        collected inside the block (``DiscardedInputs``): a trial's caller reads only
        where the VMs would go.
        """
        unchecked = self.selector.unchecked
        self.selector.unchecked = DiscardedInputs()
        try:
            with self.ledger.trial():
                yield self
        finally:
            self.selector.unchecked = unchecked


def build_context(snapshot: m.RegionSnapshot, aggregate: str, nova_filters, busy: m.BusySet,
                  index=None, filter_options=None, project_headroom=None,
                  unfit_hosts=None) -> AggregateContext:
    """Return the planning context of ``aggregate`` (empty if the snapshot does not know it).

    Host states are built lazily, so a plan touching few hosts costs little even in a
    large aggregate. ``unfit_hosts`` maps hosts no VM may be sent to to the check that
    says why (see ``planning.ha.unfit_targets``).
    """
    index = index or snapshot.index()
    hosts = tuple(index.hypervisors_of(aggregate))
    vms_by_host = {h.name: index.vms_on(h.name) for h in hosts}

    def aggregates_of(hypervisor):
        names = tuple(hypervisor.aggregates) + (
            () if aggregate in hypervisor.aggregates else (aggregate,))
        return tuple(index.aggregates[name] for name in names if name in index.aggregates)

    states = HostStates(hosts, aggregates_of, index.vms_on)
    ledger = capacity.Ledger(states, index.vms, project_headroom=project_headroom)
    selector = TargetSelector(ledger, filters_mod.build_filters(nova_filters, filter_options),
                              frozenset(busy.hosts), index.server_groups, index.images,
                              unfit_hosts)
    return AggregateContext(aggregate, hosts, vms_by_host, ledger, selector, index)
