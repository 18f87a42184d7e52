// InterPodAffinity's extension points on a scenario's incoming pod and every node it names,
// one point at a time (the state a point reads is computed once, outside the timing).

#include <benchmark/benchmark.h>

#include <vector>

#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "bench/score_loops.hpp"
#include "plugins/interpodaffinity/plugin.hpp"
#include "scheduling/framework/cycle_state.hpp"

namespace bench {

namespace {

namespace fw = scheduling::framework;
using plugins::interpodaffinity::InterPodAffinity;

// hardPodAffinityWeight 1, as the kit's config.json.
const InterPodAffinity kPlugin({.hardPodAffinityWeight = 1});

void preFilter(benchmark::State& state, Scenario& s) {
  const auto snapshot = s.snapshot();
  for (auto _ : state) {
    fw::CycleState cycle(snapshot);
    benchmark::DoNotOptimize(kPlugin.preFilter(cycle, s.incomingPod(), s.sentNodes()));
  }
}

void filter(benchmark::State& state, Scenario& s) {
  fw::CycleState cycle(s.snapshot());
  kPlugin.preFilter(cycle, s.incomingPod(), s.sentNodes());
  for (auto _ : state) {
    for (const fw::NodeInfo* node : s.sentNodes()) {
      benchmark::DoNotOptimize(kPlugin.filter(cycle, s.incomingPod(), *node));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.sentNodes().size()));
}

// Filter as the scheduler runs it: with the nodes' nominated pods added first (a CycleState
// clone and AddPod per such node), through the framework, InterPodAffinity being its only
// filter plugin.
void filterWithNominatedPods(benchmark::State& state, Scenario& s) {
  const auto& framework = *s.framework();
  fw::CycleState cycle(s.snapshot());
  framework.runPreFilterPlugins(cycle, s.incomingPod(), s.sentNodes());
  for (auto _ : state) {
    for (const fw::NodeInfo* node : s.sentNodes()) {
      benchmark::DoNotOptimize(
          framework.runFilterPluginsWithNominatedPods(cycle, s.incomingPod(), *node));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.sentNodes().size()));
}

void preScore(benchmark::State& state, Scenario& s) {
  const auto snapshot = s.snapshot();
  for (auto _ : state) {
    fw::CycleState cycle(snapshot);
    benchmark::DoNotOptimize(kPlugin.preScore(cycle, s.incomingPod(), s.sentNodes()));
  }
}

void score(benchmark::State& state, Scenario& s) {
  fw::CycleState cycle(s.snapshot());
  kPlugin.preScore(cycle, s.incomingPod(), s.sentNodes());
  timeScore(state, kPlugin, cycle, s);
}

void normalizeScore(benchmark::State& state, Scenario& s) {
  fw::CycleState cycle(s.snapshot());
  kPlugin.preScore(cycle, s.incomingPod(), s.sentNodes());
  timeNormalizeScore(state, kPlugin, cycle, s);
}

}  // namespace

void registerInterPodAffinityBenchmarks(const std::string& scenario) {
  const auto add = [&](const char* point, void (*fn)(benchmark::State&, Scenario&)) {
    benchmark::RegisterBenchmark(
        ("InterPodAffinity/" + std::string(point) + "/" + scenario).c_str(),
        [scenario, fn](benchmark::State& state) { fn(state, Scenario::get(scenario)); })
        ->Unit(benchmark::kMicrosecond);
  };
  add("PreFilter", &preFilter);
  add("Filter", &filter);
  add("FilterWithNominatedPods", &filterWithNominatedPods);
  add("PreScore", &preScore);
  add("Score", &score);
  add("NormalizeScore", &normalizeScore);
}

}  // namespace bench
