"""Benchmark of the simulated region: generation, driver reads, simulated time.

Generation time and RSS, one full sim cloud driver read and one metrics read (peak RSS
after them) at 1k and 10k hypervisors, and the real time of one simulated hour of
demo-small.

Each measurement runs in a fresh subprocess so its peak RSS is its own. Prints one
line per figure (medians of ``--repeat`` runs) and ends with one JSON line.
Usage: python tests/benchmarks/bench_simulator.py [--repeat N]
"""

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

DEMO = "demo-small"  # shipped with keyvrm.simulator (scenario.shipped)


def _measure_generation(hosts):
    from keyvrm.simulator.drivers.cloud import SimCloudDriver
    from keyvrm.simulator.drivers.metrics import SimMetricsDriver
    from keyvrm.simulator import generator
    start = time.perf_counter()
    region = generator.generate({"hosts": hosts, "hosts_per_aggregate": 50,
                                 "hugepages_aggregates": 2}, {"vms_per_host": 20})
    generate_s = time.perf_counter() - start
    generate_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cloud = SimCloudDriver(region)
    start = time.perf_counter()
    servers = cloud.list_servers()
    cloud.list_hypervisors()
    cloud.list_inventories()
    cloud.list_compute_services()
    read_s = time.perf_counter() - start
    metrics = SimMetricsDriver(region)
    start = time.perf_counter()
    metrics.host_metrics()
    metrics.vm_metrics()
    metrics_s = time.perf_counter() - start
    return {"hosts": hosts, "vms": len(servers), "generate_s": generate_s,
            "generate_rss_mb": generate_rss_mb, "driver_read_s": read_s,
            "metrics_read_s": metrics_s,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _measure_demo():
    from keyvrm.scenarios import scenario
    start = time.perf_counter()
    _, summary = scenario.load(scenario.shipped(DEMO)).run(3600)
    return {"demo_hour_s": time.perf_counter() - start,
            "expectations_met": not summary["expectations_failed"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _child(what):
    out = subprocess.run([sys.executable, __file__, "--child", what], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _median(runs, key):
    return round(statistics.median(r[key] for r in runs), 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        result = _measure_demo() if args.child == "demo" else _measure_generation(
            int(args.child))
        print(json.dumps(result))
        return
    figures = {}
    for hosts in (1000, 10000):
        runs = [_child(str(hosts)) for _ in range(args.repeat)]
        tag = f"{hosts // 1000}k"
        figures[f"generate_{tag}_s"] = _median(runs, "generate_s")
        figures[f"driver_read_{tag}_s"] = _median(runs, "driver_read_s")
        figures[f"metrics_read_{tag}_s"] = _median(runs, "metrics_read_s")
        figures[f"generate_rss_{tag}_mb"] = _median(runs, "generate_rss_mb")
        figures[f"peak_rss_{tag}_mb"] = _median(runs, "peak_rss_mb")
        figures[f"vms_{tag}"] = runs[0]["vms"]
        print(f"{hosts} hypervisors, {runs[0]['vms']} VMs: generate "
              f"{figures[f'generate_{tag}_s']} s (RSS {figures[f'generate_rss_{tag}_mb']} MB), "
              f"cloud read {figures[f'driver_read_{tag}_s']} s, metrics read "
              f"{figures[f'metrics_read_{tag}_s']} s, peak RSS {figures[f'peak_rss_{tag}_mb']} MB")
    runs = [_child("demo") for _ in range(args.repeat)]
    figures["demo_small_hour_s"] = _median(runs, "demo_hour_s")
    figures["demo_small_expectations_met"] = all(r["expectations_met"] for r in runs)
    print(f"demo-small, one simulated hour: {figures['demo_small_hour_s']} s real")
    print(json.dumps({"benchmark": "simulator", **figures}, sort_keys=True))


if __name__ == "__main__":
    main()
