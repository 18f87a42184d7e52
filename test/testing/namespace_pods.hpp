#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/cache/namespace_pod_index.hpp"
#include "test/testing/wrappers.hpp"

namespace testing {

// A NamespacePodIndex's entries: one pod of namespace `ns` per label set, named
// <namePrefix><i>, on node slot firstSlot + i. A set passed twice is one object copied, so
// those pods share its buffers, as the replicas LabelsPool shares do.
inline std::vector<scheduling::cache::NamespacePodIndex::Entry> namespacePods(
    const std::string& ns, const std::string& namePrefix,
    const std::vector<scheduling::api::Labels>& podLabels, std::uint32_t firstSlot) {
  std::vector<scheduling::cache::NamespacePodIndex::Entry> entries;
  for (std::uint32_t i = 0; i < podLabels.size(); ++i) {
    const auto pod =
        MakePod().name(namePrefix + std::to_string(i)).ns(ns).labels(podLabels[i]).obj();
    entries.push_back({std::make_shared<const scheduling::framework::PodInfo>(
                           std::make_shared<const scheduling::api::Pod>(pod)),
                       firstSlot + i});
  }
  return entries;
}

}  // namespace testing
