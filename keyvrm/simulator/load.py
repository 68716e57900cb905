"""Load of the simulated region: each VM's CPU, RAM and network demand, summed per host.

A VM's demand is its base profile x a diurnal wave (peak mid-afternoon, with a per-VM
phase) x deterministic noise x an optional overload ramp, so the same seed gives the
same load and a VM that moves takes its load with it. Hosts that are off or cut from the
network report nothing ("missing").
"""

from __future__ import annotations

import math
from typing import Optional

from keyvrm.simulator import region as r

_DAY_S = 86400.0
_MASK = (1 << 64) - 1


def _noise(key: int, bucket: int) -> float:
    """A deterministic value in [-1, 1) for (key, time bucket): splitmix64 of both."""
    z = (key * 0x9E3779B97F4A7C15 + bucket * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return (z / 9.223372036854775808e18) - 1.0


def _ramp(vm: r.VM, now: float):
    if vm.ramp_start_s is None or now < vm.ramp_start_s:
        return 1.0, 1.0
    done = 1.0 if vm.ramp_s <= 0 else min(1.0, (now - vm.ramp_start_s) / vm.ramp_s)
    return 1.0 + (vm.ramp_cpu - 1.0) * done, 1.0 + (vm.ramp_net - 1.0) * done


def vm_loads(region: r.Region, vms, now: Optional[float] = None):
    """(cpu_cores, ram_mb, net_mbps) of each of ``vms`` now, in order; zeros if stopped.

    One pass with the region's constants bound once: this runs over every VM of a
    200,000-VM region on each metrics read.
    """
    now = region.now if now is None else now
    opts = region.options
    amplitude, noise = opts.diurnal_amplitude, opts.noise
    bucket = int(now // opts.noise_period_s)
    omega = 2.0 * math.pi / _DAY_S
    offset = 2.0 * math.pi * 8 / 24  # the wave peaks at 14:00 UTC (+ the VM's phase)
    sin, out = math.sin, []
    append = out.append
    for vm in vms:
        if not vm.running:
            append((0.0, 0.0, 0.0))
            continue
        wave = 1.0 + amplitude * sin(omega * ((now + vm.phase_s) % _DAY_S) - offset)
        jitter = 1.0 + noise * _noise(vm.seq, bucket)
        flavor = vm.flavor
        if vm.ramp_start_s is None:
            ramp_cpu = ramp_net = 1.0
        else:
            ramp_cpu, ramp_net = _ramp(vm, now)
        cpu = flavor.vcpus * vm.cpu_frac * wave * jitter * ramp_cpu
        if cpu > flavor.vcpus:
            cpu = float(flavor.vcpus)
        ram = flavor.ram_mb * vm.ram_frac * (0.5 + 0.5 * jitter)
        if ram > flavor.ram_mb:
            ram = float(flavor.ram_mb)
        append((cpu if cpu > 0 else 0.0, ram if ram > 0 else 0.0,
                vm.net_mbps * wave * jitter * ramp_net))
    return out


def vm_load(region: r.Region, vm: r.VM, now: Optional[float] = None):
    """(cpu_cores, ram_mb, net_mbps) the VM uses now; zeros when it does not run."""
    return vm_loads(region, (vm,), now)[0]


def host_load(region: r.Region, host: r.Host, now: Optional[float] = None):
    """(cpu_pct, ram_pct, net_pct, hugepages_pct) of a running host's physical capacity.

    HugePages-backed VMs count in ``hugepages_pct`` (their pages are held whole), not in
    ``ram_pct``; ``hugepages_pct`` is None for a host without HugePages.
    """
    cpu = net = 0.0
    ram = float(host.reserved_ram_mb)
    for vm, (c, m, n) in zip(host.vms, vm_loads(region, host.vms, now)):
        cpu += c
        net += n
        if not vm.flavor.hugepage_size_kb:
            ram += m
    hp_pct = None
    if host.hugepages_total:
        hp_pct = 100.0 * host.hugepages_used() / host.hugepages_total
    ordinary_ram = host.ram_mb - host.hugepages_total * host.hugepage_size_kb / 1024
    return (100.0 * cpu / host.vcpus, 100.0 * ram / max(ordinary_ram, 1.0),
            100.0 * net / host.net_capacity_mbps, hp_pct)
