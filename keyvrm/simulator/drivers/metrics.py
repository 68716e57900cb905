"""The metrics driver over a simulated region: load computed from the VMs placed now.

Hosts that are off or cut from the management network are missing (all fields None,
interfaces unknown), as their exporters cannot be scraped; so are their VMs. A host whose
exporter stopped (it hangs) is missing too, and its metrics target reads down.
"""

from __future__ import annotations

from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.metrics import base
from keyvrm.model import snapshot as m
from keyvrm.simulator import load
from keyvrm.simulator import region as r

_MISSING_HOST = m.HostMetrics()


class SimMetricsDriver(base.MetricsDriver):
    """``MetricsDriver`` backed by a ``keyvrm.simulator.region.Region``."""

    def __init__(self, region: r.Region):
        self.region = region

    def _check(self):
        if self.region.now < self.region.metrics_unavailable_until:
            raise DriverUnavailable("TSDB did not answer: /api/v1/query timed out")

    @r.synchronized
    def host_metrics(self, hosts=None):
        self._check()
        names = self.region.hosts if hosts is None else hosts
        out = {}
        for name in names:
            host = self.region.hosts.get(name)
            if host is None:
                continue
            if not host.scraped:
                out[name] = _MISSING_HOST
                continue
            cpu, ram, net, hp = load.host_load(self.region, host)
            out[name] = m.HostMetrics(cpu_pct=cpu, ram_pct=ram, net_pct=net, hugepages_pct=hp,
                                      down_interfaces=host.down_interfaces,
                                      interfaces_known=True)
        return out

    @r.synchronized
    def targets_up(self, hosts=None):
        self._check()
        names = self.region.hosts if hosts is None else [h for h in hosts if h in self.region.hosts]
        return {name: self.region.hosts[name].scraped for name in names}

    @r.synchronized
    def vm_metrics(self, vm_ids=None):
        self._check()
        vms = self.region.vms.values() if vm_ids is None else \
            [self.region.vms[i] for i in vm_ids if i in self.region.vms]
        hosts = self.region.hosts
        vms = [vm for vm in vms if hosts[vm.host].reachable]
        return {vm.id: m.VMMetrics(cpu, ram, net)
                for vm, (cpu, ram, net) in zip(vms, load.vm_loads(self.region, vms))}
