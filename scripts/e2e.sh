#!/usr/bin/env bash
# Runs the end-to-end suite (test/e2e): the real kube-scheduler, kube-apiserver, etcd and
# helm built by scripts/build-kubernetes.sh, the extender built by scripts/build.sh, the chart
# installed by helm and its pods run by the suite's node agent. Needs root (network
# namespaces, mounts). Arguments go to `go test`, e.g. one scenario:
#
#   scripts/e2e.sh -run 'TestScheduling/exclusive/nodeCacheCapable=true/bind=true/sidecar-http' -v
#
# The packages run one after another (-p 1): each starts its own control plane, and one node
# agent runs on a machine at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/go-env.sh
export SX_REPO=$PWD
export SX_BINARY=${SX_BINARY:-$PWD/build/scheduler-extender}
export KUBERNETES_BIN=${KUBERNETES_BIN:-$PWD/build/kubernetes/bin}
# The flags scripts/build-kubernetes.sh builds with, so that the suite's packages reuse what
# Go's build cache holds of client-go, apimachinery and etcd's client instead of compiling
# them again.
export CGO_ENABLED=0
cd test/e2e
# The differential suite needs no cluster and runs on its own (scripts/differential.sh).
exec go test -trimpath -p 1 -count=1 -timeout 45m $(go list ./... | grep -v /differential$) "$@"
