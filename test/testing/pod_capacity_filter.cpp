#include "test/testing/pod_capacity_filter.hpp"

#include <memory>
#include <string>

#include "plugins/registry.hpp"

namespace testing {

scheduling::framework::Status PodCapacityFilter::filter(
    const scheduling::framework::CycleState& /*state*/,
    const scheduling::framework::PodInfo& /*pod*/,
    const scheduling::framework::NodeInfo& node) const {
  const auto capacity = node.labels().get(kLabel);
  if (!capacity || node.pods().size() < std::stoul(std::string(*capacity))) return {};
  return scheduling::framework::Status(scheduling::framework::Code::Unschedulable,
                                       std::string("Too many pods"));
}

scheduling::framework::runtime::Registry registryWithPodCapacity() {
  auto registry = plugins::inTreeRegistry();
  registry.add(std::string(PodCapacityFilter::kName), [](const YAML::Node&, const std::string&) {
    return std::make_shared<PodCapacityFilter>();
  });
  return registry;
}

}  // namespace testing
