#!/usr/bin/env bash
# Moves the upstream components the tests build (test/e2e/go.mod) to other releases:
#
#   scripts/pin-kubernetes.sh v1.37.2 [--etcd v3.7.3] [--helm v4.3.2]
#
# k8s.io/kubernetes asks for its staging modules (k8s.io/api, k8s.io/client-go, ...) at v0.0.0
# and finds them through replace lines into its own tree; a module built outside that tree
# must replace each with the release's tag, v0.MINOR.PATCH. This script reads the list from
# the release's own go.mod, so staging modules added by a release (v1.37's cri-streaming and
# streaming) come along. It then points the chart's default kube-scheduler image at the same
# release. test/e2e/go.mod is the one place the versions live; scripts/build-kubernetes.sh and
# the tests read them from there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/go-env.sh

usage() { echo "usage: $0 vMAJOR.MINOR.PATCH [--etcd vX.Y.Z] [--helm vX.Y.Z]" >&2; exit 2; }
[ $# -ge 1 ] || usage
kubernetes=$1; shift
etcd="" helm=""
while [ $# -gt 0 ]; do
  case "$1" in
    --etcd) etcd=$2; shift ;;
    --helm) helm=$2; shift ;;
    *) usage ;;
  esac
  shift
done
[[ $kubernetes =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || usage
staging_version="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

cd test/e2e
release_mod=$(go mod download -json "k8s.io/kubernetes@$kubernetes" |
              sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[ -f "$release_mod" ] || { echo "pin-kubernetes.sh: no go.mod for k8s.io/kubernetes@$kubernetes" >&2; exit 1; }
# The staging modules are the release's replace lines that point into ./staging.
mapfile -t staging < <(awk '$2 == "=>" && $3 ~ /^\.\/staging\// { print $1 }' "$release_mod")
[ ${#staging[@]} -gt 0 ] || { echo "pin-kubernetes.sh: $release_mod names no staging module" >&2; exit 1; }

edits=(-require="k8s.io/kubernetes@$kubernetes")
for module in "${staging[@]}"; do
  edits+=(-replace="$module=$module@$staging_version")
done
go mod edit "${edits[@]}"
[ -z "$etcd" ] || go mod edit -require="go.etcd.io/etcd/server/v3@$etcd"
[ -z "$helm" ] || go mod edit -require="helm.sh/helm/v4@$helm"
go mod tidy
cd ../..

# The chart's kube-scheduler is the release the end-to-end suite ran.
sed -i "s/^\(    tag: \)v1\.[0-9]*\.[0-9]*$/\1$kubernetes/" manifests/scheduler-extender/values.yaml
sed -i "s/^\(| \`kubeScheduler.image.tag\` | \`\)v1\.[0-9]*\.[0-9]*/\1$kubernetes/" \
  manifests/scheduler-extender/README.md
echo "pinned k8s.io/kubernetes $kubernetes (staging modules $staging_version, ${#staging[@]} of them)," \
     "etcd $(cd test/e2e && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)," \
     "helm $(cd test/e2e && go list -m -f '{{.Version}}' helm.sh/helm/v4)"
