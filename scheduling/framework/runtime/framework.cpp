#include "scheduling/framework/runtime/framework.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace scheduling::framework::runtime {

namespace {

using config::ConfigError;

std::string quoted(std::string_view name) { return "\"" + std::string(name) + "\""; }

// The observer to time a plugin call with: none outside the cycles sampled for metrics.
DurationObserver* sampled(const CycleState& state, DurationObserver* observer) {
  return state.recordPluginMetrics() ? observer : nullptr;
}

// The same for a call made once per node: only on the nodes sampled in a sampled cycle. A
// request's copy of a node has its origin's slot.
DurationObserver* sampled(const CycleState& state, const NodeInfo& node,
                          DurationObserver* observer) {
  return node.origin().slot() % Framework::kPluginMetricsNodeSampleEvery == 0
             ? sampled(state, observer)
             : nullptr;
}

// Wraps a non-success status into an Error whose message carries the context, as
// fmt.Errorf("...: %w", status.AsError()) does upstream.
Status wrapError(const std::string& context, const Status& status) {
  return Status::error(context + ": " + status.message());
}

// The plugin's PreFilterExtensions when it has them and this cycle runs them: a plugin whose
// PreFilter returned Skip has no state for AddPod or RemovePod to update.
const PreFilterExtensions* runningExtensions(const FilterEntry& e, const CycleState& state) {
  if (e.preFilter == nullptr || state.isFilterSkipped(e.owner->name())) return nullptr;
  return e.preFilter->preFilterExtensions();
}

// Records the first error of a parallel loop and tells the other workers to stop
// (parallelize.ErrorChannel with a cancelled context).
class FirstError {
 public:
  void set(Status status) {
    std::lock_guard lock(mutex_);
    if (!stop_.load()) {
      status_ = std::move(status);
      stop_.store(true);
    }
  }
  const std::atomic<bool>* stopFlag() const { return &stop_; }
  bool failed() const { return stop_.load(); }
  const Status& status() const { return status_; }

 private:
  std::mutex mutex_;
  std::atomic<bool> stop_{false};
  Status status_;
};

}  // namespace

Framework::Framework(const config::Configuration& configuration, const Registry& registry)
    : percentageOfNodesToScore_(configuration.percentageOfNodesToScore) {
  if (configuration.percentageOfNodesToScore < 0 || configuration.percentageOfNodesToScore > 100) {
    throw ConfigError("percentageOfNodesToScore", "not in valid range [0-100]");
  }
  if (configuration.parallelism <= 0) {
    throw ConfigError("parallelism", "should be an integer value greater than zero");
  }

  std::map<std::string, const config::PluginConfig*> argsByName;
  for (std::size_t i = 0; i < configuration.pluginConfig.size(); ++i) {
    const auto& pc = configuration.pluginConfig[i];
    const std::string path = "pluginConfig[" + std::to_string(i) + "]";
    if (registry.find(pc.name) == nullptr) {
      throw ConfigError(path + ".name", "unknown plugin " + quoted(pc.name));
    }
    if (!argsByName.emplace(pc.name, &pc).second) {
      throw ConfigError(path + ".name", "duplicate configuration for plugin " + quoted(pc.name));
    }
  }

  // One instance per plugin, shared by every extension point it is enabled at, as
  // frameworkImpl builds its pluginsMap.
  std::map<std::string, std::shared_ptr<Plugin>> instances;
  auto instance = [&](const std::string& name, const std::string& path) {
    if (auto it = instances.find(name); it != instances.end()) return it->second;
    const PluginFactory* factory = registry.find(name);
    if (factory == nullptr) throw ConfigError(path, "unknown plugin " + quoted(name));
    YAML::Node args;
    std::string argsPath = "pluginConfig[" + quoted(name) + "].args";
    if (auto it = argsByName.find(name); it != argsByName.end()) {
      args = it->second->args;
      argsPath = "pluginConfig[" + std::to_string(it->second - configuration.pluginConfig.data()) +
                 "].args";
    }
    auto plugin = (*factory)(args, argsPath);
    instances.emplace(name, plugin);
    return plugin;
  };

  for (std::size_t i = 0; i < configuration.filter.size(); ++i) {
    const auto& ref = configuration.filter[i];
    const std::string path = "plugins.filter[" + std::to_string(i) + "]";
    auto plugin = instance(ref.name, path + ".name");
    for (const auto& e : filter_) {
      if (e.owner == plugin)
        throw ConfigError(path + ".name", "duplicate plugin " + quoted(ref.name));
    }
    const auto* filter = dynamic_cast<const FilterPlugin*>(plugin.get());
    if (filter == nullptr) {
      throw ConfigError(path + ".name", "plugin " + quoted(ref.name) + " does not extend filter");
    }
    filter_.push_back({plugin, dynamic_cast<const PreFilterPlugin*>(plugin.get()), filter});
    filter_.back().hints = dynamic_cast<const PlacementHints*>(plugin.get());
    filtersReadNodePods_ = filtersReadNodePods_ || filter->filterReadsNodePods();
  }
  for (std::size_t i = 0; i < configuration.score.size(); ++i) {
    const auto& ref = configuration.score[i];
    const std::string path = "plugins.score[" + std::to_string(i) + "]";
    auto plugin = instance(ref.name, path + ".name");
    for (const auto& e : score_) {
      if (e.owner == plugin)
        throw ConfigError(path + ".name", "duplicate plugin " + quoted(ref.name));
    }
    const auto* score = dynamic_cast<const ScorePlugin*>(plugin.get());
    if (score == nullptr) {
      throw ConfigError(path + ".name", "plugin " + quoted(ref.name) + " does not extend score");
    }
    if (ref.weight < 0) throw ConfigError(path + ".weight", "must not be negative");
    // An unset score weight is 1 (frameworkImpl.scorePluginWeight).
    const std::int64_t weight = ref.weight == 0 ? 1 : ref.weight;
    score_.push_back({plugin, dynamic_cast<const PreScorePlugin*>(plugin.get()), score, weight});
    score_.back().hints = dynamic_cast<const PlacementHints*>(plugin.get());
  }
  parallelizer_ = std::make_unique<Parallelizer>(configuration.parallelism);
}

void Framework::setMetricsRecorder(MetricsRecorder& recorder) {
  for (auto& e : filter_) {
    const std::string_view name = e.owner->name();
    if (e.preFilter != nullptr) e.preFilterDuration = &recorder.pluginDuration(name, "PreFilter");
    e.filterDuration = &recorder.pluginDuration(name, "Filter");
  }
  for (auto& e : score_) {
    const std::string_view name = e.owner->name();
    if (e.preScore != nullptr) e.preScoreDuration = &recorder.pluginDuration(name, "PreScore");
    e.scoreDuration = &recorder.pluginDuration(name, "Score");
    if (e.score->scoreExtensions() != nullptr) {
      e.normalizeScoreDuration = &recorder.pluginDuration(name, "NormalizeScore");
    }
  }
}

bool Framework::placementChangesFilter(const PodInfo& pod, const PodInfo& placed,
                                       const SharedLister& lister) const {
  return std::any_of(filter_.begin(), filter_.end(), [&](const FilterEntry& e) {
    return e.hints != nullptr && e.hints->placementChangesFilter(pod, placed, lister);
  });
}

bool Framework::placementChangesScore(const PodInfo& pod, const PodInfo& placed,
                                      const SharedLister& lister) const {
  return std::any_of(score_.begin(), score_.end(), [&](const ScoreEntry& e) {
    return e.hints != nullptr && e.hints->placementChangesScore(pod, placed, lister);
  });
}

Status Framework::runPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      std::span<const NodeInfo* const> nodes) const {
  Status rejection;
  for (const auto& e : filter_) {
    if (e.preFilter == nullptr) continue;
    Status s = [&] {
      ScopedDuration timed(sampled(state, e.preFilterDuration));
      return e.preFilter->preFilter(state, pod, nodes);
    }();
    if (s.isSkip()) {
      state.skipFilterPlugin(e.owner->name());
      continue;
    }
    if (s.isSuccess()) continue;
    s.withPlugin(e.owner->name());
    if (s.code() == Code::UnschedulableAndUnresolvable) return s;
    if (s.code() == Code::Unschedulable) {
      // Keep running the others (#119779): their state may still be needed.
      if (rejection.isSuccess()) rejection = std::move(s);
      continue;
    }
    return wrapError("running PreFilter plugin " + quoted(e.owner->name()), s)
        .withPlugin(e.owner->name());
  }
  return rejection;
}

Status Framework::runPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                              const PodInfo& podToAdd, const NodeInfo& node) const {
  for (const auto& e : filter_) {
    const PreFilterExtensions* ext = runningExtensions(e, state);
    if (ext == nullptr) continue;
    if (Status s = ext->addPod(state, pod, podToAdd, node); !s.isSuccess()) {
      return wrapError("running AddPod on PreFilter plugin " + quoted(e.owner->name()), s);
    }
  }
  return {};
}

Status Framework::runPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                                 const PodInfo& podToRemove,
                                                 const NodeInfo& node) const {
  for (const auto& e : filter_) {
    const PreFilterExtensions* ext = runningExtensions(e, state);
    if (ext == nullptr) continue;
    if (Status s = ext->removePod(state, pod, podToRemove, node); !s.isSuccess()) {
      return wrapError("running RemovePod on PreFilter plugin " + quoted(e.owner->name()), s);
    }
  }
  return {};
}

Status Framework::runFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node, FilterTrace* trace) const {
  if (trace != nullptr) trace->clear();
  for (const auto& e : filter_) {
    const std::string_view name = e.owner->name();
    if (state.isFilterSkipped(name)) {
      if (trace != nullptr) trace->emplace_back(name, Status(Code::Skip));
      continue;
    }
    Status s = [&] {
      ScopedDuration timed(sampled(state, node, e.filterDuration));
      return e.filter->filter(state, pod, node);
    }();
    if (!s.isSuccess() && !s.isRejected()) {
      s = wrapError("running " + quoted(name) + " filter plugin", s);
    }
    if (trace != nullptr) trace->emplace_back(name, s);
    if (s.isSuccess()) continue;
    s.withPlugin(name);
    return s;
  }
  return {};
}

bool Framework::nominatedPodLeavesStateUnchanged(const CycleState& state, const PodInfo& pod,
                                                 const PodInfo& nominated,
                                                 const NodeInfo& node) const {
  for (const auto& e : filter_) {
    const PreFilterExtensions* ext = runningExtensions(e, state);
    if (ext != nullptr && !ext->nominatedPodLeavesStateUnchanged(state, pod, nominated, node)) {
      return false;
    }
  }
  return true;
}

Status Framework::runFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node,
                                                    FilterTrace* trace) const {
  std::span<const NominatedPod> nominated;
  if (node.node() != nullptr) nominated = state.snapshot().nominatedPodsFor(node);
  auto added = [&](const NominatedPod& p) {
    return p.priority >= pod.priority() && !p.sameUid(pod);
  };
  // Upstream runs the filters twice whenever the node has such a pod. When no filter reads the
  // node's pods and no AddPod would change the state, both passes see exactly what one pass
  // sees, so one pass it is: the copies below are most of a node's cost when made.
  const bool anyVisible =
      std::any_of(nominated.begin(), nominated.end(), [&](const NominatedPod& p) {
        return added(p) && (filtersReadNodePods_ ||
                            !nominatedPodLeavesStateUnchanged(state, pod, *p.info, node));
      });
  if (!anyVisible) return runFilterPlugins(state, pod, node, trace);

  // Pass 1: the node as it would be once the nominated pods of equal or higher priority
  // land (addGENominatedPods), all of them, as upstream adds them. The node's copy goes into
  // this thread's scratch NodeInfo, whose lists keep their capacity from one node to the next
  // instead of being allocated for each.
  thread_local NodeInfo scratch;
  CycleState stateWithNominated = state.clone();
  scratch.borrow(node);
  for (const auto& p : nominated) {
    if (!added(p)) continue;
    scratch.addPod(p.info);
    Status s = runPreFilterExtensionAddPod(stateWithNominated, pod, *p.info, scratch);
    if (!s.isSuccess()) return s;
  }
  Status first = runFilterPlugins(stateWithNominated, pod, scratch, trace);
  if (!first.isSuccess()) return first;
  // Pass 2: without them, so that nominated pods can only make Filter stricter (pod
  // affinity must be satisfied by pods that are really there).
  return runFilterPlugins(state, pod, node, trace);
}

Status Framework::runPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     std::span<const NodeInfo* const> nodes) const {
  for (const auto& e : score_) {
    if (e.preScore == nullptr) continue;
    Status s = [&] {
      ScopedDuration timed(sampled(state, e.preScoreDuration));
      return e.preScore->preScore(state, pod, nodes);
    }();
    if (s.isSkip()) {
      state.skipScorePlugin(e.owner->name());
      continue;
    }
    if (!s.isSuccess()) return wrapError("running PreScore plugin " + quoted(e.owner->name()), s);
  }
  return {};
}

Status Framework::runScorePlugins(const CycleState& state, const PodInfo& pod,
                                  std::span<const NodeInfo* const> nodes,
                                  NodePluginScores& out) const {
  const std::size_t numPlugins = score_.size();
  out.reset(nodes.size(), numPlugins);
  std::vector<bool> active(numPlugins);
  for (std::size_t p = 0; p < numPlugins; ++p) {
    active[p] = !state.isScoreSkipped(score_[p].owner->name());
  }
  const int numNodes = static_cast<int>(nodes.size());

  FirstError scoreError;
  parallelizer_->until(
      numNodes,
      [&](int i) {
        prefetchNodeAhead(nodes, static_cast<std::size_t>(i));
        for (std::size_t p = 0; p < numPlugins; ++p) {
          if (!active[p]) continue;
          Status s = [&] {
            ScopedDuration timed(sampled(state, *nodes[i], score_[p].scoreDuration));
            return score_[p].score->score(state, pod, *nodes[i], out.raw(i, p));
          }();
          if (!s.isSuccess()) {
            scoreError.set(
                wrapError("plugin " + quoted(score_[p].owner->name()) + " failed with", s));
            return;
          }
        }
      },
      scoreError.stopFlag());
  if (scoreError.failed()) return wrapError("running Score plugins", scoreError.status());

  // NormalizeScore per plugin. Plugins are few, so this runs sequentially.
  std::vector<NodeScore> scores(nodes.size());
  for (std::size_t p = 0; p < numPlugins; ++p) {
    if (!active[p]) continue;
    for (std::size_t i = 0; i < nodes.size(); ++i) scores[i] = {nodes[i], out.raw(i, p)};
    if (const ScoreExtensions* ext = score_[p].score->scoreExtensions(); ext != nullptr) {
      Status s = [&] {
        ScopedDuration timed(sampled(state, score_[p].normalizeScoreDuration));
        return ext->normalizeScore(state, pod, scores);
      }();
      if (!s.isSuccess()) {
        return wrapError(
            "running Normalize on Score plugins",
            wrapError("plugin " + quoted(score_[p].owner->name()) + " failed with", s));
      }
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) out.normalized(i, p) = scores[i].score;
  }

  // Range check and weights; also applies to plugins without NormalizeScore.
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (std::size_t p = 0; p < numPlugins; ++p) {
      if (!active[p]) continue;
      const std::int64_t score = out.normalized(i, p);
      if (score > kMaxNodeScore || score < kMinNodeScore) {
        return Status::error("applying score defaultWeights on Score plugins: plugin " +
                             quoted(score_[p].owner->name()) + " returns an invalid score " +
                             std::to_string(score) + ", it should in the range of [" +
                             std::to_string(kMinNodeScore) + ", " + std::to_string(kMaxNodeScore) +
                             "] after normalizing");
      }
      out.total(i) += score * score_[p].weight;
    }
  }
  return {};
}

}  // namespace scheduling::framework::runtime
