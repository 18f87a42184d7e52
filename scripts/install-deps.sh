#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the build and the tests need, skipping those present.
# With --hardening, also clang and its sanitizer/libFuzzer runtime for scripts/hardening.sh.
# With --image, only what scripts/build-image.sh and scripts/smoke-image.sh need on the host
# (buildah, debootstrap for the base image, curl and python3): the binary builds inside it.
# Go is not among the packages: helm and the Kubernetes components the tests run are built from
# their modules (scripts/build-kubernetes.sh) with a Go newer than Debian's golang-go, which
# the machines carry at /usr/local/go; this script checks for it and downloads none.
# Boost must be 1.81 or newer: Debian 12 ships it as libboost1.81-dev (its default
# libboost-dev is 1.74); Ubuntu 24.04's default libboost-dev (1.83) is new enough.
set -euo pipefail

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_install() {
  echo "installing: $*" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

if [ "${1:-}" = "--image" ]; then
  missing=()
  for p in buildah debootstrap curl python3; do installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    $sudo apt-get update -qq
    apt_install "${missing[@]}"
  fi
  exit 0
fi

# prometheus brings promtool, which test/observability runs over the chart's alert rules
# (`promtool check rules`, `promtool test rules`) and the dashboard's queries, and the server
# that scrapes the extender in test/observability's Prometheus test. Installing it may start a
# prometheus service on :9090; the tests use ports of their own.
# The end-to-end suite's local control plane and node agent: openssl makes the cluster's
# certificates, iproute2 the pods' network namespaces and veths, util-linux's unshare and
# setpriv their mount namespaces and users.
packages=(g++ cmake ninja-build rapidjson-dev libssl-dev libyaml-cpp-dev curl python3
          prometheus openssl iproute2 util-linux)
[ "${1:-}" = "--hardening" ] && packages+=(clang)

missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
boost_present=false
if { installed libboost1.81-dev && installed libboost-test1.81-dev; } ||
   { installed libboost-dev && installed libboost-test-dev &&
     dpkg --compare-versions "$(dpkg-query -W -f='${Version}' libboost-dev)" ge 1.81; }; then
  boost_present=true
fi
if [ ${#missing[@]} -gt 0 ] || ! $boost_present; then
  $sudo apt-get update -qq
  if ! $boost_present; then
    if apt-cache show libboost1.81-dev >/dev/null 2>&1; then
      missing+=(libboost1.81-dev libboost-test1.81-dev)
    else
      missing+=(libboost-dev libboost-test-dev)
    fi
  fi
  apt_install "${missing[@]}"
fi

if [ "${1:-}" = "--hardening" ]; then
  # libFuzzer and the sanitizer runtimes ship apart from clang, versioned like it.
  rt="libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
  installed "$rt" || { $sudo apt-get update -qq; apt_install "$rt"; }
fi

# Fails, saying what is needed, when no Go new enough for test/e2e/go.mod is there.
source "$(dirname "$0")/go-env.sh"
