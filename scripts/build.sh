#!/usr/bin/env bash
# Configures and builds into build/ (RelWithDebInfo). Arguments starting with -D go to CMake's
# configure step; `--target NAME` builds just that target (default: everything, tests too).
set -euo pipefail
cd "$(dirname "$0")/.."
configure=()
build=()
while [ $# -gt 0 ]; do
  case "$1" in
    -D*) configure+=("$1") ;;
    --target) build+=(--target "$2"); shift ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# A unity build (batches of files per translation unit, see CMakeLists.txt) for the suites;
# the libraries and the binary compile file by file. -DCMAKE_UNITY_BUILD=OFF for file-by-file
# rebuilds of the suites too.
cmake -S . -B build -G Ninja -DCMAKE_UNITY_BUILD=ON "${configure[@]}" >/dev/null
cmake --build build --parallel "$(nproc)" "${build[@]}"
