// PodState's Score over every node a scenario's request names, and its NormalizeScore.

#include <benchmark/benchmark.h>

#include <vector>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "plugins/podstate/pod_state.hpp"
#include "scheduling/framework/cycle_state.hpp"

namespace bench {

namespace {

namespace fw = scheduling::framework;

const plugins::podstate::PodState kPlugin;

std::vector<fw::NodeScore> rawScores(const fw::CycleState& cycle, Scenario& s) {
  std::vector<fw::NodeScore> scores;
  for (const fw::NodeInfo* node : s.sentNodes()) {
    std::int64_t score = 0;
    kPlugin.score(cycle, s.incomingPod(), *node, score);
    scores.push_back({node, score});
  }
  return scores;
}

void score(benchmark::State& state, Scenario& s) {
  const fw::CycleState cycle(s.snapshot());
  for (auto _ : state) benchmark::DoNotOptimize(rawScores(cycle, s));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.sentNodes().size()));
}

void normalizeScore(benchmark::State& state, Scenario& s) {
  const fw::CycleState cycle(s.snapshot());
  const std::vector<fw::NodeScore> raw = rawScores(cycle, s);
  std::vector<fw::NodeScore> scores;
  for (auto _ : state) {
    scores = raw;
    benchmark::DoNotOptimize(kPlugin.normalizeScore(cycle, s.incomingPod(), scores));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * raw.size()));
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
