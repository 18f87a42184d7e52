#!/usr/bin/env bash
# CI's hardening runs, after the plain suite: the suite under ASan+UBSan and under TSan (each
# in its own build directory), a bounded load run of the plain build, then every fuzz target
# under libFuzzer for a bounded time, seeded from examples/ and test/fuzz/regressions/. A fuzzer finding fails the run and
# leaves the input in build-asan/findings/: copy it into test/fuzz/regressions/<target>/
# with a name saying what it is, fix the bug, and the suite replays it from then on.
#   FUZZ_SECONDS   time per fuzz target (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-15}
# Unoptimised with line tables only: the quickest to compile, enough for sanitizer reports.
# Unity builds (see CMakeLists.txt): both trees are built once, from clean, and never shipped,
# so their libraries are batched too.
debug=(-G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DCMAKE_UNITY_BUILD=ON)

# One clang tree serves the ASan+UBSan suite and the fuzzers: libFuzzer needs clang, and
# compiling the project a fourth time was a third of CI's time.
targets=(extender_args extender_preemption_args cluster_state_list configuration watch_stream)
echo "== the whole suite under -fsanitize=address,undefined, and the fuzzers (build-asan)"
cmake -S . -B build-asan "${debug[@]}" -DCMAKE_CXX_COMPILER=clang++ -DSX_BUILD_FUZZERS=ON \
  -DSX_SANITIZE=address,undefined >/dev/null
cmake --build build-asan --parallel "$jobs"
ctest --test-dir build-asan --output-on-failure --parallel "$jobs"

# Threads meet in the cache (publish while requests read snapshots), the scheduler's
# parallel filter and scoring, and the server: TSan runs the suites that exercise those.
threaded=(cache_test informers_test scheduler_test framework_test server_test)
echo "== ${threaded[*]} under -fsanitize=thread (build-tsan)"
cmake -S . -B build-tsan "${debug[@]}" -DSX_SANITIZE=thread >/dev/null
cmake --build build-tsan --parallel "$jobs" --target "${threaded[@]}"
ctest --test-dir build-tsan --output-on-failure --parallel "$jobs" \
  -R "^($(IFS='|'; echo "${threaded[*]}"))\$"

echo "== bounded load: 64 keep-alive connections for 30s (build/)"
python3 scripts/load_check.py build/scheduler-extender 30

echo "== fuzzing each target for ${fuzz_seconds}s (build-asan)"
mkdir -p build-asan/findings
for target in "${targets[@]}"; do
  corpus=build-asan/corpus/$target
  mkdir -p "$corpus"
  case $target in
    extender_args) cp examples/requests/filter-*.json examples/requests/prioritize-*.json \
      test/fuzz/seeds/extender_args_node_names.json "$corpus" ;;
    extender_preemption_args) cp examples/requests/preempt-*.json "$corpus" ;;
    cluster_state_list) cp examples/cluster-state.json "$corpus" ;;
    configuration) cp examples/config.yaml "$corpus" ;;
    watch_stream) cp test/fuzz/seeds/watch_stream.json "$corpus" ;;
  esac
  cp test/fuzz/regressions/"$target"/* "$corpus" 2>/dev/null || true
  build-asan/test/"${target}"_fuzzer -max_total_time="$fuzz_seconds" -max_len=65536 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=build-asan/findings/"$target"- "$corpus" 2>&1 | tail -n 12
done
