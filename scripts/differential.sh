#!/usr/bin/env bash
# Runs the differential suite (test/e2e/differential): kube-scheduler's own InterPodAffinity
# plugin and framework, at the release test/e2e/go.mod pins, against the extender built by
# scripts/build.sh, on seeded random clusters. No root, no control plane. Arguments go to
# `go test`; the suite's own flags follow -args, e.g. a million cases on another seed:
#
#   scripts/differential.sh -run TestDifferential -args -cases 1000000 -seed 7
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/go-env.sh
export SX_BINARY=${SX_BINARY:-$PWD/build/scheduler-extender}
# scripts/build-kubernetes.sh's flags, so that Go's build cache serves the scheduler's packages.
export CGO_ENABLED=0
cd test/e2e
exec go test -trimpath -count=1 -timeout 60m ./differential -v "$@"
