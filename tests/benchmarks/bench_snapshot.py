"""Benchmark: serialise and load back region snapshots (JSON and zlib) at region scale.

Prints, per size, the JSON and compressed sizes and the median times of dumps, loads,
compress and decompress over --repeat runs, then one JSON line with every figure.

    python tests/benchmarks/bench_snapshot.py --sizes 1000x20 10000x20 --repeat 3
"""

import argparse
import json
import random
import statistics
import time
import tracemalloc

from keyvrm.model import codec
from keyvrm.model import snapshot as m

FLAVORS = [m.Flavor("m1.small", 1, 2048, 20), m.Flavor("m1.medium", 2, 4096, 40),
           m.Flavor("m1.large", 4, 8192, 80), m.Flavor("m1.xlarge", 8, 16384, 160),
           m.Flavor("hp.large", 4, 8192, 80, {"hw:mem_page_size": "2MB"})]


def build_snapshot(hosts, vms_per_host, seed):
    """A snapshot shaped like a real region: aggregates of 50 hosts, metrics, groups."""
    rng = random.Random(seed)
    hypervisors, vms, groups = [], [], []
    aggregates = {}
    for h in range(hosts):
        name = "cmp-%05d" % h
        agg = "agg-%03d" % (h // 50)
        aggregates.setdefault(agg, []).append(name)
        hypervisors.append(m.Hypervisor(
            name=name, availability_zone="az%d" % (h % 3), aggregates=(agg,),
            service=m.ComputeService(name, updated_at=1.7e9),
            inventories={m.VCPU: m.Inventory(64, 2, 4.0, 64, rng.randint(50, 200)),
                         m.MEMORY_MB: m.Inventory(524288, 8192, 1.0, 524288,
                                                  rng.randint(100000, 450000))},
            hugepages=(m.HugePages(2048, 4096, rng.randint(0, 4096)),) if h % 10 == 0 else (),
            traits=("HW_CPU_X86_AVX2", "COMPUTE_STATUS_ENABLED"),
            metrics=m.HostMetrics(rng.uniform(5, 95), rng.uniform(5, 95), rng.uniform(0, 60),
                                  None, (), True),
            heartbeat_at=1.7e9 - rng.uniform(0, 10), net_capacity_mbps=25000.0,
            host_ip="10.%d.%d.%d" % (h // 65536, (h // 256) % 256, h % 256)))
        for v in range(vms_per_host):
            index = h * vms_per_host + v
            group = "sg-%06d" % (index // 4) if index % 10 < 2 else None
            vms.append(m.VM(
                id="%08x-0000-4000-8000-%012x" % (index, index), name="vm-%d" % index,
                host=name, project_id="project-%03d" % (index % 300),
                flavor=rng.choice(FLAVORS), image_id="img-%d" % (index % 20),
                server_group_id=group, metadata={"owner": "team-%d" % (index % 40)},
                volume_backed=index % 3 == 0,
                metrics=m.VMMetrics(rng.uniform(0, 4), rng.uniform(512, 8192), rng.uniform(0, 100))))
            if group and index % 4 == 0:
                groups.append(m.ServerGroup(group, group, m.ANTI_AFFINITY))
    return m.RegionSnapshot(
        region="RegionOne", taken_at=1.7e9,
        availability_zones=tuple(m.AvailabilityZone("az%d" % i) for i in range(3)),
        aggregates=tuple(m.Aggregate(n, i, None, None, {}, tuple(hs))
                         for i, (n, hs) in enumerate(sorted(aggregates.items()))),
        hypervisors=tuple(hypervisors), vms=tuple(vms), server_groups=tuple(groups),
        images=tuple(m.Image("img-%d" % i, {"hw_architecture": "x86_64"}) for i in range(20)),
        sources={s: m.SourceStatus(s, True) for s in m.SOURCES})


def _median_s(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def measure(hosts, vms_per_host, seed, repeat):
    """Figures for one size; checks the round trip is exact."""
    snapshot = build_snapshot(hosts, vms_per_host, seed)
    dumps_s, text = _median_s(lambda: codec.dumps(snapshot), repeat)
    loads_s, loaded = _median_s(lambda: codec.loads(text), repeat)
    compress_s, blob = _median_s(lambda: codec.compress(snapshot), repeat)
    decompress_s, _ = _median_s(lambda: codec.decompress(blob), repeat)
    if loaded != snapshot:
        raise SystemExit("round trip changed the snapshot at %d hosts" % hosts)
    tracemalloc.start()
    codec.loads(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"hosts": hosts, "vms": hosts * vms_per_host, "json_mb": len(text) / 1e6,
            "zlib_mb": len(blob) / 1e6, "ratio": len(text) / len(blob),
            "dumps_s": dumps_s, "loads_s": loads_s, "compress_s": compress_s,
            "decompress_s": decompress_s, "load_peak_mb": peak / 1e6}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1000x20", "10000x20"],
                        help="HOSTSxVMS_PER_HOST, e.g. 10000x20 = 10,000 hosts, 200,000 VMs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args()
    rows = []
    print("%7s %8s %9s %8s %6s %8s %8s %8s %8s %9s" % (
        "hosts", "vms", "json MB", "zlib MB", "ratio", "dumps s", "loads s", "zip s",
        "unzip s", "peak MB"))
    for size in args.sizes:
        hosts, per_host = (int(x) for x in size.split("x"))
        row = measure(hosts, per_host, args.seed, args.repeat)
        rows.append(row)
        print("%7d %8d %9.1f %8.1f %6.1f %8.2f %8.2f %8.2f %8.2f %9.0f" % (
            row["hosts"], row["vms"], row["json_mb"], row["zlib_mb"], row["ratio"],
            row["dumps_s"], row["loads_s"], row["compress_s"], row["decompress_s"],
            row["load_peak_mb"]), flush=True)
    print(json.dumps({"benchmark": "snapshot_codec", "seed": args.seed, "repeat": args.repeat,
                      "results": rows}))


if __name__ == "__main__":
    main()
