#pragma once

#include <span>
#include <vector>

#include "scheduling/api/pod.hpp"
#include "scheduling/cache/snapshot.hpp"

namespace scheduling::preemption {

// preemption.FilterVictimsWithPDBViolation for victims that are single pods: whether evicting
// each of `pods`, taken in this order (most important first), would take one of the
// PodDisruptionBudgets of its namespace below zero. Each budget starts at its
// status.disruptionsAllowed and each pod it covers uses one, unless the pod is already in its
// status.disruptedPods (the API server has counted that eviction); a pod without labels is
// covered by none. Returns one flag per pod.
std::vector<bool> filterPodsWithPDBViolation(std::span<const api::Pod* const> pods,
                                             const cache::Snapshot& snapshot);

}  // namespace scheduling::preemption
