// ExtenderArgs decoding in both modes: NodeNames (nodeCacheCapable) and full Nodes, whose
// bytes are mostly Node status the decoder steps over. Reported in bytes/s of body.

#include <benchmark/benchmark.h>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "scheduling/api/json/extender_codec.hpp"

namespace bench {

namespace {

void decode(benchmark::State& state, const std::string& body) {
  for (auto _ : state) {
    auto args = scheduling::api::json::decodeExtenderArgs(body);
    benchmark::DoNotOptimize(args);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.size()));
}

}  // namespace

void registerDecodeBenchmarks(const std::string& scenario) {
  benchmark::RegisterBenchmark(
      ("DecodeExtenderArgs/" + scenario + "/names").c_str(),
      [scenario](benchmark::State& state) { decode(state, Scenario::get(scenario).namesBody()); })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(
      ("DecodeExtenderArgs/" + scenario + "/nodes").c_str(),
      [scenario](benchmark::State& state) { decode(state, Scenario::get(scenario).nodesBody()); })
      ->Unit(benchmark::kMillisecond);
}

}  // namespace bench
