// PodState's Score over every node a scenario's request names, and its NormalizeScore.

#include <benchmark/benchmark.h>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "bench/score_loops.hpp"
#include "plugins/podstate/pod_state.hpp"
#include "scheduling/framework/cycle_state.hpp"

namespace bench {

namespace {

namespace fw = scheduling::framework;

const plugins::podstate::PodState kPlugin;

void score(benchmark::State& state, Scenario& s) {
  timeScore(state, kPlugin, fw::CycleState(s.snapshot()), s);
}

void normalizeScore(benchmark::State& state, Scenario& s) {
  timeNormalizeScore(state, kPlugin, fw::CycleState(s.snapshot()), s);
}

}  // namespace

void registerPodStateBenchmarks(const std::string& scenario) {
  benchmark::RegisterBenchmark(
      ("PodState/Score/" + scenario).c_str(),
      [scenario](benchmark::State& state) { score(state, Scenario::get(scenario)); })
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(
      ("PodState/NormalizeScore/" + scenario).c_str(),
      [scenario](benchmark::State& state) { normalizeScore(state, Scenario::get(scenario)); })
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
