#!/usr/bin/env python3
"""Tables from the outputs of bench/compare.sh.

    summarize.py RESULTS_DIR SCENARIO...

Reads RESULTS_DIR/<scenario>.json (written by the kit's compare.py --json) and, when
present, RESULTS_DIR/load.json; prints the targets of the performance work checked on the
largest scenario given, then latency against cluster size for both servers.
"""

import json
import os
import sys

REQUESTS = [("/filter", "names"), ("/prioritize", "names"), ("/filter", "nodes"),
            ("/prioritize", "nodes")]

# (figure, minimum peer/candidate ratio)
TARGETS = [
    ("/filter names p50 (ms)", 20), ("/filter names p99 (ms)", 10),
    ("/prioritize names p50 (ms)", 20), ("/prioritize names p99 (ms)", 10),
    ("/filter nodes p50 (ms)", 10), ("/prioritize nodes p50 (ms)", 10),
    ("startup (s)", 5), ("RSS when ready (MiB)", 4),
]


def load(path):
    with open(path) as f:
        return json.load(f)


def targets(name, run, load_figures):
    peer, cand = run["medians"]["peer"], run["medians"]["candidate"]
    print("targets on %s (median of %d rounds; ratio = peer / candidate):"
          % (name, len(run["runs"]["candidate"])))
    ok = True
    for figure, minimum in TARGETS:
        ratio = peer[figure] / cand[figure] if cand[figure] else float("inf")
        met = ratio >= minimum
        ok &= met
        print("  %-28s peer %9.2f  candidate %8.2f  ratio %6.2f  (target >= %d)  %s"
              % (figure, peer[figure], cand[figure], ratio, minimum, "met" if met else "NOT MET"))
    print("  answers agree: %s" % ("yes" if run["answers_agree"] else "NO"))
    ok &= run["answers_agree"]
    if load_figures:
        growth = load_figures["loaded"] / load_figures["warm"] - 1
        met = growth <= 0.10
        ok &= met
        print("  RSS under %ds of load: %.1f -> %.1f MiB (%+.1f%% after warm-up; ready %.1f)  %s"
              % (load_figures["seconds"], load_figures["warm"], load_figures["loaded"],
                 100 * growth, load_figures["ready"], "met" if met else "NOT MET"))
    return ok


def by_size(runs):
    print("p50 latency (ms) against cluster size, peer / candidate:")
    print("  %-10s" % "scenario" + "".join("%24s" % ("%s %s" % r) for r in REQUESTS))
    for name, run in runs:
        peer, cand = run["medians"]["peer"], run["medians"]["candidate"]
        cells = []
        for endpoint, mode in REQUESTS:
            key = "%s %s p50 (ms)" % (endpoint, mode)
            cells.append("%24s" % ("%.2f / %.2f" % (peer[key], cand[key])))
        print("  %-10s" % name + "".join(cells))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    directory, names = sys.argv[1], sys.argv[2:]
    runs = [(n, load(os.path.join(directory, n + ".json"))) for n in names
            if os.path.exists(os.path.join(directory, n + ".json"))]
    if not runs:
        sys.exit("summarize.py: no compare.py output in %s" % directory)
    load_path = os.path.join(directory, "load.json")
    ok = targets(runs[-1][0], runs[-1][1], load(load_path) if os.path.exists(load_path) else None)
    print()
    by_size(runs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
