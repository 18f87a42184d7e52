// After kubernetes-sigs/scheduler-plugins pkg/podstate/pod_state.go.

#include "plugins/podstate/pod_state.hpp"

#include <limits>

#include "plugins/names.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/config/yaml_fields.hpp"

namespace plugins::podstate {

namespace fw = scheduling::framework;

std::string_view PodState::name() const { return names::kPodState; }

void PodState::validateArgs(const YAML::Node& args, const std::string& argsPath) {
  if (!args.IsDefined() || args.IsNull()) return;
  if (args.IsMap() && args.size() == 0) return;
  if (args.IsMap()) {
    const std::string key = scheduling::config::readKey(args.begin()->first, argsPath);
    throw scheduling::config::ConfigError(argsPath + "." + key,
                                          "unknown field: the PodState plugin takes no args");
  }
  throw scheduling::config::ConfigError(argsPath, "the PodState plugin takes no args");
}

fw::Status PodState::score(const fw::CycleState& state, const fw::PodInfo& /*pod*/,
                           const fw::NodeInfo& node, std::int64_t& score) const {
  // Terminating pods (deletionTimestamp set) on the node, minus pods nominated to it.
  const auto nominated =
      static_cast<std::int64_t>(state.snapshot().nominatedPodsFor(node).size());
  score = node.numTerminatingPods() - nominated;
  return {};
}

bool PodState::placementChangesScore(const fw::PodInfo& /*pod*/, const fw::PodInfo& placed,
                                     const fw::SharedLister& /*lister*/) const {
  return !placed.pod().status.nominatedNodeName.empty();
}

fw::Status PodState::normalizeScore(const fw::CycleState& /*state*/, const fw::PodInfo& /*pod*/,
                                    std::span<fw::NodeScore> scores) const {
  if (scores.empty()) return {};  // highest − lowest of no scores would overflow
  std::int64_t highest = -std::numeric_limits<std::int64_t>::max();
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  for (const auto& ns : scores) {
    if (ns.score > highest) highest = ns.score;
    if (ns.score < lowest) lowest = ns.score;
  }
  // Map [lowest, highest] onto [MinNodeScore, MaxNodeScore]: multiply first, then divide.
  const std::int64_t oldRange = highest - lowest;
  const std::int64_t newRange = fw::kMaxNodeScore - fw::kMinNodeScore;
  for (auto& ns : scores) {
    if (oldRange == 0) {
      ns.score = fw::kMinNodeScore;
    } else {
      ns.score = (ns.score - lowest) * newRange / oldRange + fw::kMinNodeScore;
    }
  }
  return {};
}

}  // namespace plugins::podstate
