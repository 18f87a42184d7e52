#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduling/api/label_selector.hpp"
#include "scheduling/api/pod.hpp"

namespace scheduling::api {

// policy/v1 PodDisruptionBudget, reduced to what preemption reads of it
// (preemption.FilterVictimsWithPDBViolation): which pods it covers and how many of them may
// still go.
struct PodDisruptionBudgetSpec {
  std::optional<LabelSelector> selector;
  bool operator==(const PodDisruptionBudgetSpec&) const = default;
};

struct PodDisruptionBudgetStatus {
  std::int32_t disruptionsAllowed = 0;
  // The keys of status.disruptedPods: names of the pods whose eviction the API server has
  // admitted and the disruption controller has not yet seen go. When each was admitted is
  // not kept.
  std::vector<std::string> disruptedPods;
  bool operator==(const PodDisruptionBudgetStatus&) const = default;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;

  // What the cache holds it under and a watch's DELETED event names: namespace/name.
  std::string cacheKey() const { return metadata.ns + "/" + metadata.name; }
  bool operator==(const PodDisruptionBudget&) const = default;
};

}  // namespace scheduling::api
