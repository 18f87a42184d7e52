#!/usr/bin/env bash
# Scheduling throughput (pods/s, scheduler_perf's SchedulingThroughput: pods bound per
# one-second sample, average and percentiles) of the real kube-scheduler v1.37.2 on upstream
# scheduler_perf's inter-pod affinity workloads, in three configurations side by side:
# in-tree (kube-scheduler alone), chart-default (the extender as the chart registers it by
# default) and exclusive (the chart's exclusiveInterPodAffinity, extender binding). One local
# cluster (scripts/local-cluster.sh) per workload, shared by its configurations, which each
# start their own kube-scheduler and extender and clean their pods and namespaces up. The
# driver is test/e2e/throughput; it writes a markdown table (default /tmp/throughput.md).
#
#   bench/throughput.sh [-workloads NAME[=SCALE],...] [-scale F] [-configurations a,b,c]
#                       [-measure-timeout D] [-out FILE] [-dir DIR] ...
#
# Arguments go to the test binary (go test ... -args); see the flags in
# test/e2e/throughput/throughput_test.go. Needs build/scheduler-extender (scripts/build.sh)
# and build/kubernetes/bin (scripts/build-kubernetes.sh). It takes the whole machine: run
# nothing else meanwhile if the numbers are to mean anything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../scripts/go-env.sh
source "$root/scripts/go-env.sh"
[ -x "$root/build/scheduler-extender" ] || { echo "throughput.sh: build/scheduler-extender is missing: run scripts/build.sh" >&2; exit 1; }
[ -x "$root/build/kubernetes/bin/kube-scheduler" ] || "$root/scripts/build-kubernetes.sh"
cd "$root/test/e2e"
SX_THROUGHPUT=1 CGO_ENABLED=0 exec go test -trimpath -count=1 -run '^TestThroughput$' -v -timeout 0 ./throughput -args "$@"
