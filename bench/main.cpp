// Micro-benchmarks of the request path and the cache, on the benchmark kit's scenarios.
//
//   build-bench/bench/sx_bench [--data DIR] [Google Benchmark flags]
//
// DIR (default $SX_BENCH_DATA, else /tmp/bench) holds s1/ to s5/ as gen_cluster.py
// writes them; benchmarks are registered for the scenarios found there.

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"

int main(int argc, char** argv) {
  // Take --data DIR / --data=DIR out before Google Benchmark sees the flags.
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
      bench::setDataDirectory(argv[++i]);
    } else if (std::strncmp(argv[i], "--data=", 7) == 0) {
      bench::setDataDirectory(argv[i] + 7);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  if (benchmark::ReportUnrecognizedArguments(restCount, rest.data())) return 1;

  const auto scenarios = bench::availableScenarios();
  if (scenarios.empty()) {
    std::cerr << "sx_bench: no scenario under " << bench::dataDirectory()
              << " (expected s1/ to s5/ with cluster.json, written by the benchmark kit's "
                 "gen_cluster.py; see docs/benchmarks.md)\n";
    return 1;
  }
  for (const auto& name : scenarios) {
    bench::registerDecodeBenchmarks(name);
    bench::registerEncodeBenchmarks(name);
    bench::registerCacheBenchmarks(name);
    bench::registerInterPodAffinityBenchmarks(name);
    bench::registerPodStateBenchmarks(name);
    bench::registerSchedulerBenchmarks(name);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
