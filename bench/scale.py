#!/usr/bin/env python3
"""Cost against cluster size: the extender on several scenarios, one after the other, in one run.

For each scenario directory (the benchmark kit's gen_cluster.py output) it starts the
extender on the cluster-state file, and measures the time to the first 200 from /readyz,
the RSS when ready and the peak RSS while loading, then the median latency of /filter and
/prioritize over one keep-alive connection for: every node's name, and random subsets of
2,500 and 500 names (the same seed everywhere, names kept in node order, as kube-scheduler
sends them). Adaptive sampling sends about 2,500 names at 50,000 nodes; 500 is its floor
of 5% of 10,000. The last scenario is set against the first: the ratio column.

    python3 bench/scale.py --binary build-perf/scheduler-extender /tmp/bench/s4 /tmp/bench/s5

A measuring tool, not a test: it prints a Markdown table for docs/benchmarks.md.
"""
import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import time

from extender_process import free_port, wait_ready

SUBSETS = (2500, 500)


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def start(binary, scenario, port, extra):
    argv = [binary, "--cluster-state", os.path.join(scenario, "cluster.json"),
            "--config", os.path.join(scenario, "config.json"),
            "--listen", f"127.0.0.1:{port}", *extra]
    log = open(os.path.join("/tmp", f"scale-{os.path.basename(scenario)}.log"), "wb")
    began = time.monotonic()
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    wait_ready(proc, port, f"{scenario} (see {log.name})")
    return proc, time.monotonic() - began


def bodies(scenario, seed):
    with open(os.path.join(scenario, "args-names.json")) as f:
        args = json.load(f)
    names = args["NodeNames"]
    out = {"every node": (json.dumps(args).encode(), len(names))}
    for size in SUBSETS:
        picked = sorted(random.Random(seed).sample(range(len(names)), min(size, len(names))))
        sub = dict(args, NodeNames=[names[i] for i in picked])
        out[f"{size} names"] = (json.dumps(sub).encode(), len(picked))
    return out


def median_ms(port, verb, body, n, warmup):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json"}
    times = []
    for i in range(warmup + n):
        began = time.perf_counter()
        conn.request("POST", "/" + verb, body, headers)
        response = conn.getresponse()
        response.read()
        elapsed = time.perf_counter() - began
        if response.status != 200:
            sys.exit(f"/{verb} answered {response.status}")
        if i >= warmup:
            times.append(elapsed * 1000)
    conn.close()
    return statistics.median(times)


def set_page_cache(path, state):
    """Puts the cluster-state file in the page cache ("warm") or out of it ("cold"): a machine
    with less free memory than the file, or one that reclaims cold pages, otherwise loads it
    from disk in one run and from memory in the next."""
    if state == "warm":
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    elif state == "cold":
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def measure(binary, scenario, args):
    set_page_cache(os.path.join(scenario, "cluster.json"), args.page_cache)
    port = free_port()
    proc, ready = start(binary, scenario, port, args.extra)
    size = os.path.getsize(os.path.join(scenario, "cluster.json"))
    row = {"ready_s": ready, "mb_per_s": size / 1e6 / ready,
           "rss_mib": rss_kib(proc.pid, "VmRSS") / 1024,
           "peak_mib": rss_kib(proc.pid, "VmHWM") / 1024}
    try:
        for label, (body, count) in bodies(scenario, args.seed).items():
            for verb in ("filter", "prioritize"):
                ms = median_ms(port, verb, body, args.n, args.warmup)
                row[f"/{verb} {label}"] = (ms, count)
    finally:
        proc.terminate()
        proc.wait()
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="+", help="scenario directories, smallest first")
    parser.add_argument("--binary", required=True)
    parser.add_argument("-n", type=int, default=15, help="timed requests (default 15)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--page-cache", choices=("as-is", "warm", "cold"), default="as-is",
                        help="the cluster-state file in the page cache before each start: "
                             "read first (warm), dropped from it (cold), or left (default)")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                        help="further extender flags (last)")
    args = parser.parse_args()

    rows = {}
    for scenario in args.scenarios:
        print(f"measuring {scenario} ...", file=sys.stderr, flush=True)
        rows[scenario] = measure(args.binary, scenario, args)
    names = [os.path.basename(s.rstrip("/")) for s in args.scenarios]
    first, last = rows[args.scenarios[0]], rows[args.scenarios[-1]]
    ratio = len(args.scenarios) > 1
    print("| | " + " | ".join(names) + (f" | {names[-1]} / {names[0]} |" if ratio else " |"))
    print("| --- " * (len(names) + 1 + ratio) + "|")

    def line(label, cells, r):
        print(f"| {label} | " + " | ".join(cells) + (f" | {r:.2f}× |" if ratio else " |"))

    line("ready on the file (s)", [f"{rows[s]['ready_s']:.2f}" for s in args.scenarios],
         last["ready_s"] / first["ready_s"])
    line("loading (MB/s)", [f"{rows[s]['mb_per_s']:.0f}" for s in args.scenarios],
         last["mb_per_s"] / first["mb_per_s"])
    line("RSS when ready (MiB)", [f"{rows[s]['rss_mib']:.0f}" for s in args.scenarios],
         last["rss_mib"] / first["rss_mib"])
    line("peak RSS while loading (MiB)", [f"{rows[s]['peak_mib']:.0f}" for s in args.scenarios],
         last["peak_mib"] / first["peak_mib"])
    for key in first:
        if not key.startswith("/"):
            continue
        if key.endswith("every node"):
            cells = [f"{rows[s][key][0] * 1e6 / rows[s][key][1]:.0f} ns/node"
                     for s in args.scenarios]
            r = (last[key][0] / last[key][1]) / (first[key][0] / first[key][1])
            line(f"`{key}`, per node", cells, r)
        else:
            line(f"`{key}`", [f"{rows[s][key][0]:.2f} ms" for s in args.scenarios],
                 last[key][0] / first[key][0])


if __name__ == "__main__":
    main()
