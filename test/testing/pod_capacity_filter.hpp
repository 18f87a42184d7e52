#pragma once

#include <string_view>

#include "scheduling/framework/interface.hpp"
#include "scheduling/framework/runtime/registry.hpp"

namespace testing {

// A filter plugin that stands in for kube-scheduler's resource plugins (NodeResourcesFit) in
// preemption tests: every pod takes one unit of its node's room, which the node's label
// `test.sx/capacity` sets (a node without the label has room for any number of pods). It
// reads the node's pods, so victims that leave a node make room on it.
class PodCapacityFilter final : public scheduling::framework::FilterPlugin {
 public:
  static constexpr std::string_view kName = "PodCapacity";
  static constexpr std::string_view kLabel = "test.sx/capacity";

  std::string_view name() const override { return kName; }
  scheduling::framework::Status filter(const scheduling::framework::CycleState& state,
                                       const scheduling::framework::PodInfo& pod,
                                       const scheduling::framework::NodeInfo& node) const override;
};

// The in-tree registry with PodCapacity beside its plugins.
scheduling::framework::runtime::Registry registryWithPodCapacity();

}  // namespace testing
