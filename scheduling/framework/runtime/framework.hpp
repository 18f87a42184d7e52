#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scheduling/config/configuration.hpp"
#include "scheduling/framework/interface.hpp"
#include "scheduling/framework/runtime/metrics_recorder.hpp"
#include "scheduling/framework/runtime/parallelizer.hpp"
#include "scheduling/framework/runtime/registry.hpp"

namespace scheduling::framework::runtime {

struct FilterEntry {
  std::shared_ptr<Plugin> owner;
  const PreFilterPlugin* preFilter;  // nullptr when the plugin has no PreFilter
  const FilterPlugin* filter;
  // Where the plugin's durations go; null until a MetricsRecorder is attached.
  DurationObserver* preFilterDuration = nullptr;
  DurationObserver* filterDuration = nullptr;
  const PlacementHints* hints = nullptr;  // nullptr when the plugin has none
};

struct ScoreEntry {
  std::shared_ptr<Plugin> owner;
  const PreScorePlugin* preScore;  // nullptr when the plugin has no PreScore
  const ScorePlugin* score;
  std::int64_t weight;
  DurationObserver* preScoreDuration = nullptr;
  DurationObserver* scoreDuration = nullptr;
  DurationObserver* normalizeScoreDuration = nullptr;
  const PlacementHints* hints = nullptr;  // nullptr when the plugin has none
};

// Per node and per score plugin (indexed like scorePlugins()): the raw Score and the value
// after NormalizeScore (0 for skipped plugins), and per node Σ weight × normalized. Kept in
// flat node-major arrays, so a request allocates them once rather than twice per node.
class NodePluginScores {
 public:
  void reset(std::size_t numNodes, std::size_t numPlugins) {
    numPlugins_ = numPlugins;
    raw_.assign(numNodes * numPlugins, 0);
    normalized_.assign(numNodes * numPlugins, 0);
    total_.assign(numNodes, 0);
  }
  std::size_t size() const { return total_.size(); }
  bool empty() const { return total_.empty(); }

  std::int64_t& raw(std::size_t node, std::size_t plugin) {
    return raw_[node * numPlugins_ + plugin];
  }
  std::int64_t raw(std::size_t node, std::size_t plugin) const {
    return raw_[node * numPlugins_ + plugin];
  }
  std::int64_t& normalized(std::size_t node, std::size_t plugin) {
    return normalized_[node * numPlugins_ + plugin];
  }
  std::int64_t normalized(std::size_t node, std::size_t plugin) const {
    return normalized_[node * numPlugins_ + plugin];
  }
  std::int64_t& total(std::size_t node) { return total_[node]; }
  std::int64_t total(std::size_t node) const { return total_[node]; }

 private:
  std::size_t numPlugins_ = 0;
  std::vector<std::int64_t> raw_;
  std::vector<std::int64_t> normalized_;
  std::vector<std::int64_t> total_;
};

// What each filter plugin said about one node, in plugin order, for /explain: the plugins
// that ran (a Skip for those whose PreFilter skipped them), up to the first failure.
using FilterTrace = std::vector<std::pair<std::string, Status>>;

// frameworkImpl (framework/runtime/framework.go): one profile's plugins, in configured
// order, and the Run*Plugins methods with upstream's status handling.
class Framework {
 public:
  // Throws config::ConfigError for unknown plugins, a plugin that lacks the extension
  // point it is listed under, bad weights or args, duplicates.
  Framework(const config::Configuration& configuration, const Registry& registry);

  // Reports plugin call durations to `recorder` from now on, in the cycles whose state says
  // so. Call before serving: the entries are not guarded against concurrent cycles.
  void setMetricsRecorder(MetricsRecorder& recorder);

  // Whether the next cycle should time its plugin calls: one cycle in
  // kPluginMetricsSampleEvery, the first included. Upstream records plugin durations for
  // 10% of cycles (pluginMetricsSamplePercent) for the same reason: timing every Filter and
  // Score call costs two clock reads and a shared histogram update per node and plugin
  // (perf on S3 /prioritize with NodeNames: ~20% of the samples). Deterministic rather than
  // random, so that tests know which cycles are timed.
  static constexpr std::uint64_t kPluginMetricsSampleEvery = 10;
  bool sampleCycleForMetrics() const {
    return cycles_.fetch_add(1, std::memory_order_relaxed) % kPluginMetricsSampleEvery == 0;
  }
  // Filter and Score run once per node: in a sampled cycle, they are timed on the nodes whose
  // slot is a multiple of this. Timing every node cost 7% of /prioritize's CPU at 5,000
  // nodes (two clock reads per node and plugin, and observations into one histogram from
  // both workers); one node in 16 still gives hundreds of observations per sampled cycle.
  static constexpr NodeSlot kPluginMetricsNodeSampleEvery = 16;

  const std::vector<FilterEntry>& filterPlugins() const { return filter_; }
  const std::vector<ScoreEntry>& scorePlugins() const { return score_; }
  std::int32_t percentageOfNodesToScore() const { return percentageOfNodesToScore_; }
  Parallelizer& parallelizer() const { return *parallelizer_; }

  // Whether placing `placed` may change what the filter plugins (for /filter and /preempt)
  // or the score plugins (for /prioritize) say about `pod`: asks each plugin's
  // PlacementHints; a plugin without them depends on no placement.
  bool placementChangesFilter(const PodInfo& pod, const PodInfo& placed,
                              const SharedLister& lister) const;
  bool placementChangesScore(const PodInfo& pod, const PodInfo& placed,
                             const SharedLister& lister) const;

  // RunPreFilterPlugins: Skip marks the plugin skipped for Filter and AddPod/RemovePod;
  // UnschedulableAndUnresolvable returns at once; Unschedulable is remembered while the
  // others still run; anything else is wrapped as Error.
  Status runPreFilterPlugins(CycleState& state, const PodInfo& pod,
                             std::span<const NodeInfo* const> nodes) const;
  Status runPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod, const PodInfo& podToAdd,
                                     const NodeInfo& node) const;
  Status runPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                        const PodInfo& podToRemove, const NodeInfo& node) const;

  // RunFilterPlugins: the first non-success stops; a rejection keeps its code, anything
  // else becomes Error. The returned status names its plugin.
  Status runFilterPlugins(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                          FilterTrace* trace = nullptr) const;
  // RunFilterPluginsWithNominatedPods: pass 1 with the nominated pods of equal or higher
  // priority added to a copy of the node and state, pass 2 without; both must pass. The
  // trace is that of the pass that decided. Pass 1 is left out when it could not differ: no
  // filter reads the node's pods and no AddPod would change the state.
  Status runFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                           const NodeInfo& node,
                                           FilterTrace* trace = nullptr) const;

  // RunPreScorePlugins: Skip marks the plugin skipped for Score; other failures are Error.
  Status runPreScorePlugins(CycleState& state, const PodInfo& pod,
                            std::span<const NodeInfo* const> nodes) const;
  // RunScorePlugins: Score in parallel over nodes, NormalizeScore per plugin, the [0, 100]
  // range check, weights. `out` gets one entry per node.
  Status runScorePlugins(const CycleState& state, const PodInfo& pod,
                         std::span<const NodeInfo* const> nodes, NodePluginScores& out) const;

 private:
  // Every PreFilterExtensions not skipped this cycle says AddPod(nominated) changes nothing.
  bool nominatedPodLeavesStateUnchanged(const CycleState& state, const PodInfo& pod,
                                        const PodInfo& nominated, const NodeInfo& node) const;

  std::vector<FilterEntry> filter_;
  bool filtersReadNodePods_ = false;  // some filter plugin's filterReadsNodePods()
  std::vector<ScoreEntry> score_;
  std::int32_t percentageOfNodesToScore_;
  std::unique_ptr<Parallelizer> parallelizer_;
  mutable std::atomic<std::uint64_t> cycles_{0};
};

}  // namespace scheduling::framework::runtime
