#!/usr/bin/env bash
# Runs the end-to-end suite's node agent (test/e2e/nodeagent) for a control plane of
# scripts/local-cluster.sh, in the foreground, so that the chart installed there runs:
#
#   scripts/local-cluster.sh up /tmp/cluster --nodes 8 --zones 2
#   scripts/node-agent.sh /tmp/cluster &
#   KUBECONFIG=/tmp/cluster/admin.kubeconfig build/kubernetes/bin/helm install ...
#
# It starts a default kube-scheduler for the chart's own pods and plays kubelet for every
# node: the chart's kube-scheduler and extender run as host processes (the binaries built in
# build/ standing in for their images), every other pod is reported running. Needs root
# (network namespaces, mounts); stop it with Ctrl-C or SIGTERM. docs/testing.md has the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 CLUSTER_DIR" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "node-agent.sh: needs root, for the pods' network namespaces and mounts" >&2; exit 1; }
source scripts/go-env.sh
export SX_REPO=$PWD CGO_ENABLED=0
mkdir -p build
(cd test/e2e && go build -trimpath -o ../../build/node-agent ./cmd/node-agent)
exec build/node-agent --cluster "$1"
