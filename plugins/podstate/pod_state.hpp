#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "scheduling/framework/interface.hpp"

namespace plugins::podstate {

// The PodState sample score plugin of kubernetes-sigs/scheduler-plugins (pkg/podstate):
// favours nodes with terminating pods (capacity about to free up) and disfavours nodes that
// pods are nominated to (capacity already promised).
class PodState final : public scheduling::framework::ScorePlugin,
                       public scheduling::framework::ScoreExtensions,
                       public scheduling::framework::PlacementHints {
 public:
  std::string_view name() const override;

  // The plugin takes no args: throws scheduling::config::ConfigError at `argsPath` for any
  // (an absent, null or empty `args` is accepted).
  static void validateArgs(const YAML::Node& args, const std::string& argsPath);

  // terminating pods on the node − pods nominated to it (whatever their priority, the pod
  // being scheduled included).
  scheduling::framework::Status score(const scheduling::framework::CycleState& state,
                                      const scheduling::framework::PodInfo& pod,
                                      const scheduling::framework::NodeInfo& node,
                                      std::int64_t& score) const override;
  const scheduling::framework::ScoreExtensions* scoreExtensions() const override { return this; }
  // Integer min–max onto [0, 100]; all 0 when every node has the same raw score.
  scheduling::framework::Status normalizeScore(
      const scheduling::framework::CycleState& state, const scheduling::framework::PodInfo& pod,
      std::span<scheduling::framework::NodeScore> scores) const override;

  // A placed pod stops counting as nominated (its nomination is dropped when it is bound),
  // whatever the pod being scored; a placed pod never counts as terminating.
  bool placementChangesFilter(const scheduling::framework::PodInfo&,
                              const scheduling::framework::PodInfo&,
                              const scheduling::framework::SharedLister&) const override {
    return false;
  }
  bool placementChangesScore(const scheduling::framework::PodInfo& pod,
                             const scheduling::framework::PodInfo& placed,
                             const scheduling::framework::SharedLister& lister) const override;
};

}  // namespace plugins::podstate
