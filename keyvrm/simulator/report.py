"""Summaries of a simulated region's state: counts for JSON, a table for people."""

from __future__ import annotations

import collections

from keyvrm.simulator import region as r


def summarize(region: r.Region) -> dict:
    """The counts a run is judged by.

    Hosts by state, VMs by their host's state and by status, migrations by status,
    compute services up/down/forced down/disabled, the faults that fired, and how many
    image-backed VMs an evacuation rebuilt from their image (their local disk lost).
    """
    hosts_by_state = collections.Counter()
    vms_by_host_state = collections.Counter()
    services = collections.Counter()
    for host in region.hosts.values():
        state = region.host_state(host)
        hosts_by_state[state] += 1
        vms_by_host_state[state] += len(host.vms)
        services["down" if region.service_is_down(host) else "up"] += 1
        if host.forced_down:
            services["forced_down"] += 1
        if host.disabled:
            services["disabled"] += 1
    vms_by_status = collections.Counter(vm.status for vm in region.vms.values())
    migrations = collections.Counter(m.status for m in region.migrations.values())
    return {
        "region": region.name,
        "elapsed_s": round(region.clock.elapsed_s, 3),
        "hosts": len(region.hosts),
        "vms": len(region.vms),
        "hosts_by_state": dict(sorted(hosts_by_state.items())),
        "vms_by_host_state": dict(sorted(vms_by_host_state.items())),
        "vms_by_status": dict(sorted(vms_by_status.items())),
        "migrations_by_status": dict(sorted(migrations.items())),
        "services": {k: services.get(k, 0) for k in ("up", "down", "forced_down", "disabled")},
        "faults_fired": list(region.faults_fired),
        "rebuilt_vms": len(region.rebuilt_vms),
    }


def unmet_expectations(summary: dict, expectations: dict) -> list:
    """What of ``expectations`` the summary does not meet, one sentence each."""
    unmet = []
    for key in ("hosts_by_state", "vms_by_host_state", "vms_by_status", "migrations_by_status"):
        for name, want in expectations.get(key, {}).items():
            got = summary[key].get(name, 0)
            if got != want:
                unmet.append(f"{key}.{name}: expected {want}, got {got}")
    if "services_down" in expectations:
        got = summary["services"]["down"]
        if got != expectations["services_down"]:
            unmet.append(f"services_down: expected {expectations['services_down']}, got {got}")
    if "faults_fired" in expectations:
        got = len(summary["faults_fired"])
        if got != expectations["faults_fired"]:
            unmet.append(f"faults_fired: expected {expectations['faults_fired']}, got {got}")
    return unmet


def render(summary: dict) -> str:
    """A readable multi-line table of a summary."""
    lines = [f"region {summary['region']}: {summary['hosts']} hosts, {summary['vms']} VMs, "
             f"after {summary['elapsed_s']:.0f} s simulated"]
    lines.append(f"{'host state':<16}{'hosts':>8}{'VMs':>10}")
    for state in r.HOST_STATES:
        hosts = summary["hosts_by_state"].get(state, 0)
        if hosts:
            lines.append(f"{state:<16}{hosts:>8}{summary['vms_by_host_state'].get(state, 0):>10}")
    svc = summary["services"]
    lines.append(f"compute services: {svc['up']} up, {svc['down']} down "
                 f"({svc['forced_down']} forced down), {svc['disabled']} disabled")
    status = ", ".join(f"{k} {v}" for k, v in summary["vms_by_status"].items()) or "none"
    lines.append(f"VMs by status: {status}")
    migr = ", ".join(f"{k} {v}" for k, v in summary["migrations_by_status"].items()) or "none"
    lines.append(f"migrations: {migr}")
    if summary.get("rebuilt_vms"):
        lines.append(f"VMs rebuilt from their image by an evacuation (local disk lost): {summary['rebuilt_vms']}")
    lines.append(f"faults fired: {len(summary['faults_fired'])}")
    for fault in summary["faults_fired"]:
        targets = ", ".join(fault["targets"][:5])
        more = f" (+{len(fault['targets']) - 5})" if len(fault["targets"]) > 5 else ""
        lines.append(f"  {fault['at_s']:>9.0f} s  {fault['kind']:<26} {targets}{more}")
    for failure in summary.get("expectations_failed", ()):
        lines.append(f"UNMET: {failure}")
    if "expectations_failed" in summary and not summary["expectations_failed"]:
        lines.append("expectations: all met")
    return "\n".join(lines)
