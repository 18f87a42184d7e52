#!/usr/bin/env python3
"""A scenario of the bodies kube-scheduler really sends, derived from a kit scenario.

    sample_args.py SCENARIO_DIR FEASIBLE_JSON OUT_DIR [--nodes N]

kube-scheduler filters with its adaptive percentageOfNodesToScore: it stops once it has
found max(5%, 50 - nodes/125 %) of the nodes feasible (at least 100), 420 of 1,000 nodes,
500 of 5,000 or of 10,000, and only those reach the extender. FEASIBLE_JSON is an
ExtenderFilterResult of SCENARIO_DIR's args-names.json (any server's /filter answer); the
first N of its NodeNames (default: kube-scheduler's number), in the order found, make
OUT_DIR's args-names.json, and the same Node objects taken from args-nodes.json make its
args-nodes.json. cluster.json and config.json are
linked, so compare.py runs on OUT_DIR as on any kit scenario.
"""

import argparse
import json
import os
import sys


def adaptive_feasible_nodes(total):
    """numFeasibleNodesToFind with percentageOfNodesToScore unset (schedule_one.go)."""
    if total < 100:
        return total
    percentage = max(5, 50 - total // 125)
    return max(100, total * percentage // 100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1])
    parser.add_argument("scenario")
    parser.add_argument("feasible")
    parser.add_argument("out")
    parser.add_argument("--nodes", type=int, default=0,
                        help="names to keep (default: kube-scheduler's adaptive number)")
    args = parser.parse_args()

    with open(os.path.join(args.scenario, "args-names.json")) as f:
        names_args = json.load(f)
    with open(args.feasible) as f:
        feasible = json.load(f).get("NodeNames") or []
    total = len(names_args["NodeNames"])
    keep = args.nodes or adaptive_feasible_nodes(total)
    if len(feasible) < keep:
        sys.exit("sample_args.py: %d feasible nodes, %d wanted" % (len(feasible), keep))
    chosen = feasible[:keep]

    with open(os.path.join(args.scenario, "args-nodes.json")) as f:
        nodes_args = json.load(f)
    by_name = {n["metadata"]["name"]: n for n in nodes_args["Nodes"]["items"]}
    missing = [n for n in chosen if n not in by_name]
    if missing:
        sys.exit("sample_args.py: %s not in args-nodes.json" % missing[0])

    os.makedirs(args.out, exist_ok=True)
    for name in ("cluster.json", "config.json"):
        link = os.path.join(args.out, name)
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(os.path.join(args.scenario, name)), link)
    names_args["NodeNames"] = chosen
    nodes_args["Nodes"]["items"] = [by_name[n] for n in chosen]
    for name, body in (("args-names.json", names_args), ("args-nodes.json", nodes_args)):
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(body, f, separators=(",", ":"))
    print("sample_args: %d of %d nodes (feasible: %d) into %s" %
          (keep, total, len(feasible), args.out))


if __name__ == "__main__":
    main()
