"""Exact optimum of an HA evacuation (most VMs placed) through HiGHS (scipy.optimize.milp).

Benchmark-only helper of bench_planning.py (needs scipy, tests/benchmarks/requirements.txt).
For one aggregate and its fenced hosts it builds the MILP

    max  sum x[c,h]
    s.t. sum_h x[c,h] <= n_c                                   (each VM at most one host)
         sum_c vcpus_c x[c,h] <= free VCPU of h                 (Placement, per host)
         sum_c ram_c   x[c,h] <= free MEMORY_MB of h
         sum_c pages_c x[c,h] <= free huge pages of h (per page size, huge-page VMs)
         sum_{vm in g} x[vm,h] <= max_server_per_host(g) - members of g already on h
                                                               (hard anti-affinity)

over the same candidates the planner considers: the aggregate's hosts that are not
fenced, not busy and online, where the VM's request is within max_unit. Free capacity is
read from keyvrm.scheduling.host_state.HostState (limits - used), i.e. as
keyvrm.scheduling.capacity checks it. Evacuable VMs are those plan_evacuation keeps
(not no_evac, not busy, not on local disk without allow_rebuild).

With ``forced`` (the VMs the planner's ordered pass placed) the row of each class gets
the lower bound "at least its forced members": the *priority optimum*, the most VMs that
can be placed while every VM the SPEC order placed stays placed (bench_planning.py's
docstring says why that is the planner's objective).

VMs outside any server group that make the same request and may use the same hosts are
interchangeable, so by default they share one integer variable x[c,h] in 0..n_c per host
(an exact aggregation of the binary x[vm,h]: same optimum, far less symmetry);
``per_vm=True`` keeps one binary per VM and host.

Nova filters other than the server-group ones are not modelled in the constraints: on the
generated regions none binds (ComputeFilter = online and enabled, checked above;
ComputeCapabilitiesFilter sees only ``hw:`` scoped specs, which it ignores;
ImagePropertiesFilter has no images; there are no affinity groups). To stay exact
anyway, every other configured filter is run on each (VM, candidate host) pair and a
pair it rejects gets no variable.
"""

from __future__ import annotations

import collections
import time

import numpy as np
from scipy import optimize
from scipy import sparse

from keyvrm.model import snapshot as m
from keyvrm.planning.context import build_context
from keyvrm.scheduling import capacity
from keyvrm.scheduling import hugepages
from keyvrm.scheduling.selector import is_online

_GROUP_FILTERS = ("ServerGroupAntiAffinityFilter", "ServerGroupAffinityFilter")


def evacuable_vms(index, fenced, busy, allow_rebuild=False):
    """VMs of the fenced hosts that plan_evacuation tries to place."""
    out = []
    for host in sorted(fenced):
        if host in busy.hosts:
            continue
        for vm in index.vms_on(host):
            if vm.no_evac or vm.id in busy.vms or (vm.image_backed and not allow_rebuild):
                continue
            out.append(vm)
    return out


def _pages(request, state):
    """(page size KiB, pages) the request takes on ``state``, () if it wants no huge pages."""
    if not request.wants_hugepages:
        return None
    wanted = request.page_request
    if wanted == hugepages.PAGE_LARGE:
        sizes = [s for s in state.hugepages_free if s > hugepages.SMALL_PAGE_KB]
        if not sizes:
            return False
        wanted = max(sizes)  # the planner may fall back to a smaller size: approximation
    if wanted not in state.hugepages_free:
        return False
    return wanted, hugepages.pages_needed(request.ram_mb, wanted)


def build_and_solve(snapshot, app_config, aggregate, fenced, busy=m.BusySet(), *,
                    index=None, time_limit_s=20.0, per_vm=False, max_hosts=200,
                    max_vms=1000, assignment=False, forced=()):
    """Solve one aggregate. Returns a dict: status, optimum (or None), solve_s, sizes.

    Every VM id in ``forced`` must be placed (the priority-respecting optimum, see the
    module docstring). With ``assignment`` the dict also has ``moves``: (VM id, target)
    of the solution.
    """
    forced = frozenset(forced)
    index = index or snapshot.index()
    fenced = frozenset(fenced)
    ctx = build_context(snapshot, aggregate, app_config.nova_filters, busy, index)
    states = ctx.ledger.hosts
    vms = evacuable_vms(index, fenced, busy)
    hosts = []
    for hyp in ctx.hosts:
        if hyp.name in fenced or hyp.name in busy.hosts or not is_online(hyp):
            continue
        if hyp.service is None or not hyp.service.is_enabled:
            continue
        hosts.append(hyp.name)
    info = dict(hosts=len(hosts), vms=len(vms))
    if not vms:
        return dict(info, status="optimal", optimum=0, solve_s=0.0, variables=0)
    if not hosts:
        return dict(info, status="optimal", optimum=0, solve_s=0.0, variables=0)
    if len(hosts) > max_hosts or len(vms) > max_vms:
        return dict(info, status="too_large", optimum=None, solve_s=None, variables=0)
    other_filters = [f for f in ctx.selector.filters if f.name not in _GROUP_FILTERS]
    selector = ctx.selector
    # Classes: interchangeable VMs (same request, same allowed hosts, no group).
    classes = collections.OrderedDict()  # key -> [request, group, [vm...], allowed hosts]
    for vm in vms:
        request = selector.request_for(vm)
        group = request.server_group
        if group is not None and group.policy != m.ANTI_AFFINITY:
            group = None  # affinity/soft groups: none in generated regions (see docstring)
        allowed = []
        for h in hosts:
            state = states[h]
            if capacity.capacity_rejection(state, request.resources) is not None:
                # Does not fit even on the host's present free capacity (incl. max_unit).
                continue
            if any(not f.host_passes(state, request) for f in other_filters):
                continue
            if group is not None:
                limit = int(group.rules.get("max_server_per_host", 1))
                if state.group_members(group.id, excluding_vm=vm.id) >= limit:
                    continue
            allowed.append(h)
        if per_vm or group is not None:
            key = ("vm", vm.id)
        else:
            r = request.resources
            key = (r.vcpus, r.ram_mb, r.page_request, tuple(allowed))
        entry = classes.get(key)
        if entry is None:
            classes[key] = [request.resources, group, [vm], allowed]
        else:
            entry[2].append(vm)
    # Variables.
    var_class, var_host, upper = [], [], []
    host_pos = {h: i for i, h in enumerate(hosts)}
    for ci, (res, group, members, allowed) in enumerate(classes.values()):
        for h in allowed:
            var_class.append(ci)
            var_host.append(host_pos[h])
            upper.append(len(members))
    n = len(var_class)
    info["variables"] = n
    with_hosts = {ci for ci in var_class}
    if any(vm.id in forced for ci, c in enumerate(classes.values()) if ci not in with_hosts
           for vm in c[2]):
        return dict(info, status="forced_vm_without_host", optimum=None, solve_s=0.0)
    info["classes"] = len(classes)
    if n == 0:
        return dict(info, status="optimal", optimum=0, solve_s=0.0)
    rows, cols, vals, lo, hi = [], [], [], [], []
    row = 0
    class_list = list(classes.values())
    # Each class (VM) placed at most n_c times.
    by_class = collections.defaultdict(list)
    for j, ci in enumerate(var_class):
        by_class[ci].append(j)
    for ci, js in by_class.items():
        rows.extend([row] * len(js))
        cols.extend(js)
        vals.extend([1.0] * len(js))
        lo.append(float(sum(1 for vm in class_list[ci][2] if vm.id in forced)))
        hi.append(float(len(class_list[ci][2])))
        row += 1
    # Host capacity: VCPU, MEMORY_MB, huge pages per page size.
    by_host = collections.defaultdict(list)
    for j, hi_ in enumerate(var_host):
        by_host[hi_].append(j)
    for hpos, js in by_host.items():
        state = states[hosts[hpos]]
        for rc, attr in ((m.VCPU, "vcpus"), (m.MEMORY_MB, "ram_mb")):
            coeffs = [(j, getattr(class_list[var_class[j]][0], attr)) for j in js]
            coeffs = [(j, a) for j, a in coeffs if a > 0]
            if not coeffs:
                continue
            for j, a in coeffs:
                rows.append(row)
                cols.append(j)
                vals.append(float(a))
            lo.append(-np.inf)
            hi.append(float(state.limits[rc] - state.used[rc]))
            row += 1
        per_size = collections.defaultdict(list)
        for j in js:
            pages = _pages(class_list[var_class[j]][0], state)
            if pages:
                per_size[pages[0]].append((j, pages[1]))
        for size_kb, coeffs in per_size.items():
            for j, a in coeffs:
                rows.append(row)
                cols.append(j)
                vals.append(float(a))
            lo.append(-np.inf)
            hi.append(float(state.hugepages_free[size_kb]))
            row += 1
    # Anti-affinity: per group and host, members placed <= limit - members already there.
    by_group_host = collections.defaultdict(list)
    for j, ci in enumerate(var_class):
        group = class_list[ci][1]
        if group is not None:
            by_group_host[(group.id, var_host[j])].append(j)
    for (gid, hpos), js in by_group_host.items():
        group = class_list[var_class[js[0]]][1]
        limit = int(group.rules.get("max_server_per_host", 1))
        room = limit - states[hosts[hpos]].group_members(gid)
        rows.extend([row] * len(js))
        cols.extend(js)
        vals.extend([1.0] * len(js))
        lo.append(-np.inf)
        hi.append(float(max(0, room)))
        row += 1
    a_matrix = sparse.csr_array((vals, (rows, cols)), shape=(row, n))
    start = time.perf_counter()
    res = optimize.milp(
        c=-np.ones(n), integrality=np.ones(n),
        bounds=optimize.Bounds(np.zeros(n), np.array(upper, dtype=float)),
        constraints=optimize.LinearConstraint(a_matrix, np.array(lo), np.array(hi)),
        options=dict(time_limit=time_limit_s, disp=False))
    solve_s = time.perf_counter() - start
    info["constraints"] = row
    if res.x is None:
        return dict(info, status="no_solution", optimum=None, solve_s=solve_s)
    value = int(round(-res.fun))
    if res.status == 0:
        status = "optimal"
    else:
        status = "time_limit"
    bound = getattr(res, "mip_dual_bound", None)
    if assignment:
        moves, left = [], [list(c[2]) for c in class_list]
        for j, count in enumerate(res.x):
            for _ in range(int(round(count))):
                moves.append((left[var_class[j]].pop().id, hosts[var_host[j]]))
        info["moves"] = moves
    return dict(info, status=status, optimum=value, solve_s=solve_s,
                dual_bound=None if bound is None else int(np.floor(-bound + 1e-6)))
