#!/usr/bin/env bash
# Builds the upstream components the end-to-end suite runs, from their own Go modules at the
# releases test/e2e/go.mod pins, into build/kubernetes/bin/:
#   etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, helm
# Each main (test/e2e/cmd/<name>) only calls upstream's command. Modules come from the Go
# module proxy; nothing else is downloaded. Go's build cache makes a second run with nothing
# changed take seconds; the version stamps are fixed strings, so they do not defeat it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/go-env.sh

out=$PWD/build/kubernetes/bin
mkdir -p "$out"
cd test/e2e

version_of() { go list -m -f '{{.Version}}' "$1"; }
kubernetes=$(version_of k8s.io/kubernetes)
helm=$(version_of helm.sh/helm/v4)
[[ $kubernetes =~ ^v([0-9]+)\.([0-9]+)\. ]] || { echo "build-kubernetes.sh: cannot read k8s.io/kubernetes' version ('$kubernetes') from test/e2e/go.mod" >&2; exit 1; }

# What upstream's hack/lib/version.sh stamps, so `--version` and the User-Agent name the
# release (an unstamped build calls itself v0.0.0-master, and kube-apiserver would then take
# kubectl and kube-scheduler for clients of another version). No build date: it would change
# every run and make Go relink every binary.
stamp=()
for package in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  stamp+=("-X $package.gitVersion=$kubernetes"
          "-X $package.gitMajor=${BASH_REMATCH[1]}"
          "-X $package.gitMinor=${BASH_REMATCH[2]}"
          "-X $package.gitTreeState=clean")
done
stamp+=("-X helm.sh/helm/v4/internal/version.version=$helm")

# Static binaries without debug information (-s -w), as upstream releases them.
export CGO_ENABLED=0
started=$SECONDS
go build -trimpath -ldflags "-s -w ${stamp[*]}" -o "$out/" \
  ./cmd/etcd ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler \
  ./cmd/kubectl ./cmd/helm
echo "build-kubernetes.sh: k8s.io/kubernetes $kubernetes, etcd $(version_of go.etcd.io/etcd/server/v3)," \
     "helm $helm in build/kubernetes/bin ($((SECONDS - started)) s)"
