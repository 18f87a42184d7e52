#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench/scenario.hpp"
#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/interface.hpp"

// Score over every node a scenario's request names, and NormalizeScore of those scores, for
// any score plugin. Templates rather than calls through ScorePlugin: the plugins are final,
// so their calls stay direct and what is timed is the plugin, not a virtual dispatch.
namespace bench {

template <typename Plugin>
std::vector<scheduling::framework::NodeScore> rawScores(
    const Plugin& plugin, const scheduling::framework::CycleState& cycle, Scenario& s) {
  std::vector<scheduling::framework::NodeScore> scores;
  scores.reserve(s.sentNodes().size());
  for (const scheduling::framework::NodeInfo* node : s.sentNodes()) {
    std::int64_t score = 0;
    plugin.score(cycle, s.incomingPod(), *node, score);
    scores.push_back({node, score});
  }
  return scores;
}

template <typename Plugin>
void timeScore(benchmark::State& state, const Plugin& plugin,
               const scheduling::framework::CycleState& cycle, Scenario& s) {
  for (auto _ : state) benchmark::DoNotOptimize(rawScores(plugin, cycle, s));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.sentNodes().size()));
}

// Each iteration also copies the raw scores back in (16 bytes a node): NormalizeScore
// rewrites them in place.
template <typename Plugin>
void timeNormalizeScore(benchmark::State& state, const Plugin& plugin,
                        const scheduling::framework::CycleState& cycle, Scenario& s) {
  const std::vector<scheduling::framework::NodeScore> raw = rawScores(plugin, cycle, s);
  std::vector<scheduling::framework::NodeScore> scores;
  for (auto _ : state) {
    scores = raw;
    benchmark::DoNotOptimize(plugin.normalizeScore(cycle, s.incomingPod(), scores));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * raw.size()));
}

}  // namespace bench
