"""Make room for VMs an evacuation pass left without a target by moving its own VMs.

After the ordered pass of ``ha.ordered_pass`` some VMs may find no host although the
capacity they need is there, split over several hosts. ``place_left_over`` gives each of
them, in the order it is given, a second chance: the best-fitting host that takes it
directly, else a host that lacks only capacity and from which up to ``_MAX_EVICTED``
VMs *this plan* put there can move to other hosts (each to the best-fitting one) and so
leave enough room. It does so in two layouts - the pass's own targets, and the pass's
VMs placed again largest first by best fit (fewer, larger holes) - and keeps the one
that places more. VMs already running elsewhere are never touched, a VM the pass placed
is never dropped (the evacuation order keeps its priority), VMs whose place others
depend on (affinity groups, same/different-host hints) stay where the pass put them,
and every move is checked again through the selector (busy set, online state,
capacity, Nova filters, server groups), so the plan's invariants hold as in the pass
itself. Deterministic: hosts and VMs are visited in a fixed order.
"""

from __future__ import annotations

import bisect

from keyvrm.model import snapshot as m
from keyvrm.scheduling import capacity

_ROOM_CODES = frozenset((capacity.RAM_DEPLETED, capacity.CPU_DEPLETED,
                         capacity.HUGEPAGES_DEPLETED))
_GROUPED_POLICIES = frozenset((m.AFFINITY, "soft-affinity"))
_HINT_KEYS = ("same_host", "different_host")
_HOME_ATTEMPTS = 64
_MAX_EVICTED = 4


class _FreeRamIndex:
    """Candidate hosts sorted by free RAM, kept current as placements change."""

    def __init__(self, states, names):
        self._states = states
        self._key = {n: (states.free_of(n, m.MEMORY_MB), n) for n in names}
        self._sorted = sorted(self._key.values())

    def refresh(self, name) -> None:
        """Re-rank ``name`` after its usage changed."""
        old = self._key[name]
        del self._sorted[bisect.bisect_left(self._sorted, old)]
        new = (self._states.free_of(name, m.MEMORY_MB), name)
        self._key[name] = new
        bisect.insort(self._sorted, new)

    def most_free_first(self) -> list:
        return [name for _, name in reversed(self._sorted)]

    def most_free(self, but=None) -> float:
        """The largest free RAM of a host (other than ``but``)."""
        for free, name in reversed(self._sorted[-2:]):
            if name != but:
                return free
        return 0.0

    def holding_at_least(self, ram_mb):
        """Hosts with at least ``ram_mb`` free, least free first (best fit).

        A generator over the live ranking: stop using it once a placement changed it.
        """
        for i in range(bisect.bisect_left(self._sorted, (ram_mb, "")), len(self._sorted)):
            yield self._sorted[i][1]


def _hinted_ids(vms) -> frozenset:
    named = set()
    for vm in vms:
        for key in _HINT_KEYS:
            value = vm.scheduler_hints.get(key) or ()
            named.update((value,) if isinstance(value, str) else value)
    return frozenset(named)


def _movable(vm, selector, hinted) -> bool:
    """A planned VM may change target unless other placements depend on where it is."""
    if vm.id in hinted or any(vm.scheduler_hints.get(key) for key in _HINT_KEYS):
        return False
    group = selector.server_groups.get(vm.server_group_id)
    return group is None or group.policy not in _GROUPED_POLICIES


class _Repacker:
    """One repair run: planned VMs by host, the free-RAM ranking and a journal of moves.

    Every move is made at once in the ledger and in the bookkeeping, and journaled, so
    a chain of moves that fails half-way is undone exactly (``_undo``).
    """

    def __init__(self, ctx, targets, requests, candidate_names, avoid_targets, vms):
        self.ledger = ctx.ledger
        self.selector = ctx.selector
        self.states = ctx.ledger.hosts
        self.targets = targets
        self.requests = requests
        self.avoid = avoid_targets
        self.free = _FreeRamIndex(self.states, candidate_names)
        self.hinted = _hinted_ids(vms)
        self.vms = {vm.id: vm for vm in vms}
        self.on_host = {}
        self.journal = []
        self.clearing = set()
        for vm_id in sorted(targets):
            if self._is_movable(vm_id):
                self.on_host.setdefault(targets[vm_id], []).append(vm_id)

    def _is_movable(self, vm_id) -> bool:
        return _movable(self.vms[vm_id], self.selector, self.hinted)

    def _shift(self, vm_id, old, target) -> None:
        """Count ``vm_id`` on ``target`` instead of ``old`` (None: placed nowhere yet)."""
        vm, resources = self.vms[vm_id], self.requests[vm_id].resources
        self.ledger.move(vm, resources, target if target is not None else vm.host)
        if target is None:
            del self.targets[vm_id]
        else:
            self.targets[vm_id] = target
        if self._is_movable(vm_id):
            if old is not None:
                self.on_host[old].remove(vm_id)
            if target is not None:
                self.on_host.setdefault(target, []).append(vm_id)
        for name in (old, target):
            if name is not None:
                self.free.refresh(name)

    def _move(self, vm_id, target) -> None:
        old = self.targets.get(vm_id)
        self.journal.append((vm_id, old, target))
        self._shift(vm_id, old, target)

    def _undo(self, mark) -> None:
        """Take back every move journaled since ``mark``, last first."""
        while len(self.journal) > mark:
            vm_id, old, target = self.journal.pop()
            self._shift(vm_id, target, old)

    def _new_home(self, vm_id, away_from):
        """A best-fit host other than ``away_from`` that accepts planned VM ``vm_id``.

        Hosts being cleared are skipped; at most ``_HOME_ATTEMPTS`` hosts are examined,
        so a large aggregate stays cheap.
        """
        request = self.requests[vm_id]
        tried = 0
        for name in self.free.holding_at_least(request.resources.ram_mb):
            if name == away_from or name == self.avoid.get(vm_id) or name in self.clearing:
                continue
            if self.selector.host_rejection(request, name) is None:
                return name
            tried += 1
            if tried >= _HOME_ATTEMPTS:
                break
        return None

    def _evictions(self, host, need_ram, need_cpu):
        """Sets of planned VMs on ``host`` to try moving out, cheapest first.

        One VM that frees enough alone (the smallest such); then the smallest VMs there
        until their sum frees enough (small VMs find a new home most easily).
        """
        resident = sorted(self.on_host.get(host, ()),
                          key=lambda r: (self.requests[r].resources.ram_mb, r))
        sizes = [self.requests[r].resources for r in resident]
        for vm_id, res in zip(resident, sizes):
            if res.ram_mb >= need_ram and res.vcpus >= need_cpu:
                yield (vm_id,)
                break
        ram = cpu = 0
        for i, res in enumerate(sizes[:_MAX_EVICTED]):
            ram += res.ram_mb
            cpu += res.vcpus
            if ram >= need_ram and cpu >= need_cpu:
                if i > 0:
                    yield tuple(resident[:i + 1])
                return

    def _rehome(self, vm_id, away_from) -> bool:
        """Move planned VM ``vm_id`` off ``away_from`` to a best-fit host, if one takes it."""
        home = self._new_home(vm_id, away_from)
        if home is None:
            return False
        self._move(vm_id, home)
        return True

    def _clear_and_place(self, vm_id, host) -> bool:
        """Move planned VMs out of ``host`` until ``vm_id`` fits there, then place it."""
        request = self.requests[vm_id]
        state = self.states[host]
        if any(not f.host_passes(state, request) for f in self.selector.filters):
            return False  # a filter refuses the host whatever moves out of it
        need_ram = request.resources.ram_mb - state.free(m.MEMORY_MB)
        need_cpu = request.resources.vcpus - state.free(m.VCPU)
        room_elsewhere = self.free.most_free(but=host)
        self.clearing.add(host)
        try:
            for evicted in list(self._evictions(host, need_ram, need_cpu)):
                if max(self.requests[o].resources.ram_mb for o in evicted) > room_elsewhere:
                    continue  # the largest of them would find no home
                mark = len(self.journal)
                if (all(self._rehome(other, host) for other in evicted)
                        and self.selector.host_rejection(request, host) is None):
                    self._move(vm_id, host)
                    return True
                self._undo(mark)
        finally:
            self.clearing.discard(host)
        return False

    def _freeable(self, host, room) -> int:
        """The most RAM that moving planned VMs out of ``host`` could free.

        As ``_evictions`` chooses them, counting only VMs no larger than ``room``.
        """
        sizes = sorted(size for size in (self.requests[r].resources.ram_mb
                                         for r in self.on_host[host]) if size <= room)
        return max(sizes[-1:] + [sum(sizes[:_MAX_EVICTED])]) if sizes else 0

    def place(self, vm_id) -> bool:
        """Place one left-over VM, best fit, else by moving planned VMs out of a host.

        Hosts to clear are tried most free first, skipping those where moving out planned
        VMs (that some host has room for) cannot free enough; once no host could free
        enough for the next one, no later host can.
        """
        request = self.requests[vm_id]
        avoid = self.avoid.get(vm_id)
        ram_mb = request.resources.ram_mb
        for host in self.free.holding_at_least(ram_mb):
            if host != avoid and self.selector.host_rejection(request, host) is None:
                self._move(vm_id, host)
                self.journal.clear()
                return True
        room = self.free.most_free()
        freeable = {host: self._freeable(host, room) for host in self.on_host}
        roomiest = max(freeable.values(), default=0)
        placed = False
        for host in self.free.most_free_first():
            need_ram = ram_mb - self.states.free_of(host, m.MEMORY_MB)
            if need_ram > roomiest:
                break
            if host == avoid or need_ram > freeable.get(host, 0):
                continue
            why = self.selector.host_rejection(request, host)
            if why in _ROOM_CODES and self._clear_and_place(vm_id, host):
                placed = True
                break
        self.journal.clear()
        return placed

    def run(self, left_over) -> list:
        """Try each left-over VM in order; return the ids placed.

        A VM without a server group or hints whose flavor, image and project equal
        those of one that already failed is not tried again until a placement succeeds.
        """
        placed, failed = [], set()
        for vm_id in left_over:
            request = self.requests[vm_id]
            vm = self.vms[vm_id]
            signature = None
            if vm.server_group_id is None and not vm.scheduler_hints:
                flavor = vm.flavor
                signature = (flavor.name, flavor.vcpus, flavor.ram_mb,
                             request.resources.page_request, vm.image_id, vm.project_id,
                             self.avoid.get(vm_id))
                if signature in failed:
                    continue
            if self.place(vm_id):
                placed.append(vm_id)
                failed.clear()
            elif signature is not None:
                failed.add(signature)
        return placed


def _count_on_sources(ledger, vms, requests, ids) -> None:
    """Count ``ids`` back on their snapshot hosts (as if this plan had not placed them)."""
    for vm_id in ids:
        ledger.move(vms[vm_id], requests[vm_id].resources, vms[vm_id].host)


def _count_on_targets(ledger, vms, requests, targets, ids) -> None:
    for vm_id in ids:
        ledger.move(vms[vm_id], requests[vm_id].resources, targets[vm_id])


def _best_fit_largest_first(ctx, requests, vms, ids, candidate_names, avoid_targets):
    """Place ``ids`` largest first, each on the host with the least free RAM that takes it.

    Returns their targets, or None as soon as one finds no host.
    """
    free = _FreeRamIndex(ctx.ledger.hosts, candidate_names)
    targets = {}
    for vm_id in sorted(ids, key=lambda i: (-requests[i].resources.ram_mb,
                                            -requests[i].resources.vcpus, i)):
        request = requests[vm_id]
        for name in free.holding_at_least(request.resources.ram_mb):
            if name != avoid_targets.get(vm_id) and ctx.selector.host_rejection(
                    request, name) is None:
                ctx.ledger.move(vms[vm_id], request.resources, name)
                free.refresh(name)
                targets[vm_id] = name
                break
        else:
            return None
    return targets


def place_left_over(ctx, targets, requests, left_over, candidate_names, avoid_targets,
                    vms) -> list:
    """Try to place each VM of ``left_over`` (in order); return the ids placed.

    ``targets`` (VM id -> target, in plan order) holds this plan's placements and is
    updated in place: new entries for VMs placed here (at the end, in order), new targets
    for VMs moved to make room. ``requests`` maps every VM id of ``targets`` and
    ``left_over`` to its placement request; ``vms`` are all VMs of the plan.

    Two layouts are tried and the one placing more VMs is kept (the first on a tie):
    the pass's own targets, and its movable VMs placed again largest first by best fit
    (fewer, larger holes); in each, left-over VMs go in directly or by moving VMs out.
    """
    if not left_over:
        return []
    first_targets = dict(targets)
    first_placed = _Repacker(ctx, first_targets, requests, candidate_names, avoid_targets,
                             vms).run(left_over)
    by_id = {vm.id: vm for vm in vms}
    if len(first_placed) == len(left_over) or any(
            vm.host not in ctx.ledger.hosts for vm in vms):
        chosen, placed = first_targets, first_placed
    else:
        hinted = _hinted_ids(vms)
        repackable = [vm_id for vm_id in targets
                      if _movable(by_id[vm_id], ctx.selector, hinted)]
        first_undone = repackable + first_placed
        _count_on_sources(ctx.ledger, by_id, requests, first_undone)
        packed = _best_fit_largest_first(ctx, requests, by_id, repackable, candidate_names,
                                         avoid_targets)
        chosen, placed = first_targets, first_placed
        if packed is None:
            _count_on_sources(ctx.ledger, by_id, requests, repackable)
        else:
            second_targets = {vm_id: packed.get(vm_id, target)
                              for vm_id, target in targets.items()}
            second_placed = _Repacker(ctx, second_targets, requests, candidate_names,
                                      avoid_targets, vms).run(left_over)
            if len(second_placed) > len(first_placed):
                chosen, placed = second_targets, second_placed
            else:
                _count_on_sources(ctx.ledger, by_id, requests, repackable + second_placed)
        if chosen is first_targets:
            _count_on_targets(ctx.ledger, by_id, requests, first_targets, first_undone)
    targets.clear()
    targets.update(chosen)
    return placed
