"""The metrics driver over the Prometheus HTTP API (VictoriaMetrics in production).

One instant query (``GET /api/v1/query``) per metric, whatever the number of hosts
and VMs: eight requests per harvest (those of one call sent concurrently). Each
expression is a ``[metrics]`` option whose ``{window}`` is replaced by the averaging
window; the query runs at the injected clock's time (the TSDB's own "now" without a
clock). A NaN/Inf sample or a series the
TSDB does not return is missing (None), never 0. A host's interfaces are known when
the interface-state query returned at least one of its interfaces; those whose value
is below 1 were down at some time in the window (a NaN value condemns nothing).

A timeout, a refused connection or a 5xx answer raises ``DriverUnavailable``; an
expression the TSDB rejects (4xx) raises ``DriverError`` naming the option.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import re
import threading
from typing import Optional

import requests

from keyvrm.drivers.errors import DriverError
from keyvrm.drivers.errors import DriverUnavailable
from keyvrm.drivers.metrics import base
from keyvrm.model import snapshot as m

# ``//user:password@``: the user may be empty and the password may hold ``@`` or ``/`` (not
# percent-encoded): it runs to the last ``@`` of the URL.
_URL_CREDENTIALS = re.compile(r"(//[^/\s:@]*:)\S*@(?=[^\s@]*(?:\s|$))")

_PORT_SUFFIX = re.compile(r":\d+$")


def _without_credentials(text: str) -> str:
    """``text`` with the password of any ``scheme://user:password@host`` URL in it masked."""
    return _URL_CREDENTIALS.sub(r"\1***@", text)


@dataclasses.dataclass(frozen=True)
class MetricQueries:
    """The PromQL templates, one per metric (field name = option name without ``_query``)."""

    host_cpu: str
    host_ram: str
    host_net: str
    host_hugepages: str
    host_interface_up: str
    host_target_up: str
    vm_cpu: str
    vm_ram: str
    vm_net: str

    @classmethod
    def from_conf(cls, group) -> "MetricQueries":
        """The templates of the ``[metrics]`` option group ``group``."""
        return cls(**{f.name: getattr(group, f.name + "_query") for f in dataclasses.fields(cls)})


def _sample(value) -> Optional[float]:
    number = float(value[1])
    return number if math.isfinite(number) else None


class PrometheusMetricsDriver(base.MetricsDriver):
    """``MetricsDriver`` reading a Prometheus-compatible TSDB; ``request_count`` counts queries."""

    def __init__(self, url: str, queries: MetricQueries, *, window_s: int = 300,
                 timeout_s: float = 30, host_label: str = "instance",
                 strip_port: bool = True, vm_label: str = "uuid",
                 interface_label: str = "device", clock=None, session=None):
        self.url = url.rstrip("/") + "/api/v1/query"
        self.shown_url = _without_credentials(self.url)  # error texts reach logs and the API
        self.queries = queries
        self.window_s = window_s
        self.timeout_s = timeout_s
        self.host_label = host_label
        self.strip_port = strip_port
        self.vm_label = vm_label
        self.interface_label = interface_label
        self.clock = clock
        self.session = session or requests.Session()
        self.request_count = 0
        self._count_lock = threading.Lock()

    @classmethod
    def from_conf(cls, conf, clock=None) -> "PrometheusMetricsDriver":
        """The driver the ``[metrics]`` options describe."""
        group = conf.metrics
        return cls(group.url, MetricQueries.from_conf(group), window_s=group.window,
                   timeout_s=group.timeout, host_label=group.host_label,
                   strip_port=group.host_label_strip_port, vm_label=group.vm_label,
                   interface_label=group.interface_label, clock=clock)

    def query(self, name: str) -> list:
        """(labels, value or None) of each series the ``{name}_query`` expression returns."""
        expr = getattr(self.queries, name).replace("{window}", "%ds" % self.window_s)
        params = {"query": expr}
        if self.clock is not None:
            params["time"] = "%.3f" % self.clock.time()
        option = "[metrics] %s_query" % name
        with self._count_lock:
            self.request_count += 1
        try:
            resp = self.session.get(self.url, params=params, timeout=self.timeout_s)
        except requests.RequestException as exc:
            raise DriverUnavailable("TSDB at %s did not answer %s: %s"
                                    % (self.shown_url, option, _without_credentials(str(exc)))) from exc
        if resp.status_code >= 500:
            raise DriverUnavailable("TSDB at %s answered %d to %s: %s"
                                    % (self.shown_url, resp.status_code, option, resp.text[:300]))
        try:
            body = resp.json()
        except ValueError:
            body = {}
        if resp.status_code >= 400 or body.get("status") != "success":
            raise DriverError("TSDB at %s refused %s (HTTP %d): %s" % (
                self.shown_url, option, resp.status_code, body.get("error") or resp.text[:300]))
        data = body.get("data") or {}
        if data.get("resultType") != "vector":
            raise DriverError("%s must return an instant vector, the TSDB returned %r"
                              % (option, data.get("resultType")))
        return [(series.get("metric", {}), _sample(series["value"])) for series in data.get("result", ())]

    def _host(self, labels) -> Optional[str]:
        name = labels.get(self.host_label)
        if name and self.strip_port:
            name = _PORT_SUFFIX.sub("", name)
        return name

    def _results(self, names) -> dict:
        """Query name -> results, the queries sent concurrently (the first failure raises)."""
        with concurrent.futures.ThreadPoolExecutor(len(names), thread_name_prefix="promql") as pool:
            return dict(zip(names, pool.map(self.query, names)))

    def _by_host(self, results) -> dict:
        out = {}
        for labels, value in results:
            host = self._host(labels)
            if host:
                out[host] = value
        return out

    def host_metrics(self, hosts=None):
        """Each hypervisor seen in any host series, its fields None where a series is missing."""
        fields = ("cpu", "ram", "net", "hugepages")
        results = self._results(["host_" + f for f in fields] + ["host_interface_up"])
        values = {f: self._by_host(results["host_" + f]) for f in fields}
        interfaces: dict = {}
        for labels, value in results["host_interface_up"]:
            host, device = self._host(labels), labels.get(self.interface_label)
            if host and device:
                down = interfaces.setdefault(host, set())
                if value is not None and value < 1:
                    down.add(device)
        names = set(interfaces).union(*values.values())
        if hosts is not None:
            names &= set(hosts)
        return {host: m.HostMetrics(
            cpu_pct=values["cpu"].get(host), ram_pct=values["ram"].get(host),
            net_pct=values["net"].get(host), hugepages_pct=values["hugepages"].get(host),
            down_interfaces=tuple(sorted(interfaces.get(host, ()))),
            interfaces_known=host in interfaces) for host in names}

    def targets_up(self, hosts=None):
        """Each hypervisor the target query returns: True when its value is 1 (scraped now)."""
        values = self._by_host(self.query("host_target_up"))
        up = {host: value is not None and value >= 1 for host, value in values.items()}
        return up if hosts is None else {host: up[host] for host in hosts if host in up}

    def _by_vm(self, results) -> dict:
        return {labels[self.vm_label]: value for labels, value in results if labels.get(self.vm_label)}

    def vm_metrics(self, vm_ids=None):
        """Each VM seen in any VM series, its fields None where a series is missing."""
        results = self._results(["vm_cpu", "vm_ram", "vm_net"])
        cpu, ram, net = (self._by_vm(results[name]) for name in ("vm_cpu", "vm_ram", "vm_net"))
        ids = set(cpu).union(ram, net)
        if vm_ids is not None:
            ids &= set(vm_ids)
        return {vm: m.VMMetrics(cpu.get(vm), ram.get(vm), net.get(vm)) for vm in ids}
